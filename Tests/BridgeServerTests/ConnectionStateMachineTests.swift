import BridgeHub
import BridgeProtocol
import Foundation
import Testing

@testable import BridgeServer

@Suite struct ConnectionStateMachineTests {
    private func text(_ json: String) -> Data { Data(json.utf8) }

    @Test func helloWithTokenAuthenticatesThenAccepts() {
        var machine = ConnectionStateMachine()
        let action = machine.receivedText(text(#"{"kind":"hello","version":1,"token":"t"}"#))
        guard case .authenticate(let token, _, _) = action else {
            Issue.record("expected authenticate, got \(action)")
            return
        }
        #expect(token == "t")
        #expect(machine.receivedText(text(#"{"kind":"ping","nonce":"early"}"#)) == .none)
        let accepted = machine.authenticated(.granted(Grant(.sharedSecret)))
        guard case .acceptHello(Grant(.sharedSecret), 1, _) = accepted else {
            Issue.record("expected acceptHello, got \(accepted)")
            return
        }
        #expect(machine.isReady)
        #expect(machine.receivedText(text(#"{"kind":"ping","nonce":"n"}"#)) == .send(.pong(Pong(nonce: "n"))))
    }

    @Test func rejectedTokenClosesWith1008AfterAFailedAck() {
        var machine = ConnectionStateMachine()
        _ = machine.receivedText(text(#"{"kind":"hello","version":1,"token":"bad"}"#))
        let action = machine.authenticated(.refused(rateLimited: false))
        guard case .close(.helloAck(let ack)?, 1008, _) = action else {
            Issue.record("expected close with helloAck, got \(action)")
            return
        }
        #expect(ack.ok == false && ack.error?.code == .unauthorized)
        #expect(machine.state == .closed)
    }

    @Test func rateLimitedRejectionSaysSo() {
        var machine = ConnectionStateMachine()
        _ = machine.receivedText(text(#"{"kind":"hello","version":1,"token":"x"}"#))
        guard case .close(.helloAck(let ack)?, 1008, _) = machine.authenticated(.refused(rateLimited: true)) else {
            Issue.record("expected close")
            return
        }
        #expect(ack.error?.code == .rateLimited)
    }

    @Test(arguments: [
        #"{"kind":"ping","nonce":"x"}"#, #"{"kind":"listThreads","id":"1"}"#, "garbage", #"{"kind":"nope"}"#,
    ])
    func anythingButHelloFirstCloses(frame: String) {
        var machine = ConnectionStateMachine()
        guard case .close(nil, 1008, _) = machine.receivedText(text(frame)) else {
            Issue.record("expected close 1008")
            return
        }
        #expect(machine.receivedText(text(#"{"kind":"hello","version":1,"token":"t"}"#)) == .none)
    }

    @Test func binaryBeforeHelloCloses() {
        var machine = ConnectionStateMachine()
        guard case .close(nil, 1008, _) = machine.receivedBinary() else {
            Issue.record("expected close 1008")
            return
        }
    }

    @Test func bearerPreauthenticatedHelloNeedsNoToken() {
        var machine = ConnectionStateMachine(preauthenticated: Grant(.device(id: "d1")))
        guard case .acceptHello(Grant(.device(id: "d1")), 1, _) = machine.receivedText(text(#"{"kind":"hello","version":1}"#)) else {
            Issue.record("expected acceptHello")
            return
        }
    }

    @Test func missingTokenIsUnauthorized() {
        var machine = ConnectionStateMachine()
        guard case .close(.helloAck(let ack)?, 1008, _) = machine.receivedText(text(#"{"kind":"hello","version":1}"#)) else {
            Issue.record("expected close")
            return
        }
        #expect(ack.error?.code == .unauthorized)
    }

    @Test func versionNegotiation() {
        var low = ConnectionStateMachine()
        guard case .close(.helloAck(let ack)?, 1008, _) = low.receivedText(text(#"{"kind":"hello","version":0,"token":"t"}"#)) else {
            Issue.record("expected close")
            return
        }
        #expect(ack.error?.code == .versionUnsupported && ack.versions == [1])
        var high = ConnectionStateMachine()
        _ = high.receivedText(text(#"{"kind":"hello","version":9,"token":"t"}"#))
        guard case .acceptHello(_, 1, _) = high.authenticated(.granted(Grant(.sharedSecret))) else {
            Issue.record("expected version 1")
            return
        }
    }

    @Test func timeoutOnlyBeforeHello() {
        var waiting = ConnectionStateMachine()
        guard case .close(nil, 1008, _) = waiting.helloTimedOut() else {
            Issue.record("expected close")
            return
        }
        var ready = ConnectionStateMachine(preauthenticated: Grant(.sharedSecret))
        _ = ready.receivedText(text(#"{"kind":"hello","version":1}"#))
        #expect(ready.helloTimedOut() == .none)
    }

    @Test func afterHandshakeErrorsKeepTheConnection() {
        var machine = ConnectionStateMachine(preauthenticated: Grant(.sharedSecret))
        _ = machine.receivedText(text(#"{"kind":"hello","version":1}"#))
        guard case .send(.error(let bad)) = machine.receivedText(text("{")) else {
            Issue.record("expected error")
            return
        }
        #expect(bad.code == .badRequest && bad.id == nil)
        guard case .send(.error(let unknown)) = machine.receivedText(text(#"{"kind":"warp","id":"w"}"#)) else {
            Issue.record("expected error")
            return
        }
        #expect(unknown.code == .unknownKind && unknown.id == "w")
        guard case .send(.error(let again)) = machine.receivedText(text(#"{"kind":"hello","version":1}"#)) else {
            Issue.record("expected error")
            return
        }
        #expect(again.code == .alreadyAuthenticated)
        #expect(
            machine.receivedText(text(#"{"kind":"getDiff","id":"g","threadId":"t"}"#))
                == .handle(id: "g", request: BridgeRequest(.getDiff, ThreadRef(threadId: "t"))))
        #expect(machine.receivedText(text(#"{"kind":"ack","seq":12}"#)) == .ack(seq: 12))
        #expect(machine.isReady)
    }
}
