import BridgeClient
import BridgeProtocol
import BridgeStore
import Foundation
import HostileBridge
import Testing

@testable import BridgeFleet

/// Issue 44, item 1: `machines add` / `addMachine` with the pairing URL of a hostile bridge (a real WebSocket
/// server on 127.0.0.1). Its `pairingPending {expiresAt: 1e300}` trapped in BridgeClient and killed the process;
/// ids it hands out become a row key and words on the terminal. Each is refused with a clear failure, and no
/// row is left behind.
@Suite(.timeLimit(.minutes(1))) struct MachinePairingHostileTests {
    static func pair(answering frames: [String]) async throws -> (Result<MachineStore.Machine, any Error>, [MachineStore.Machine]) {
        let bridge = try await HostileBridge.start { peer in
            guard await peer.receive() != nil else { return }
            for frame in frames { try await peer.send(frame) }
            while await peer.receive() != nil {}
        }
        defer { bridge.stop() }
        let home = try await HomeHarness()
        let target = try MachinePairing.target(
            url: "codex-bridge://pair?v=1&host=127.0.0.1&port=\(bridge.port)&code=CODE-1234&id=hostile&name=h", host: nil, port: nil,
            fingerprint: nil, code: nil)
        let result: Result<MachineStore.Machine, any Error>
        do {
            result = .success(
                try await MachinePairing.link(target, home: MachineRef(id: "home", name: "home"), name: nil, store: home.store))
        } catch {
            result = .failure(error)
        }
        return (result, try home.store.all())
    }

    static func ack(serverId: String = "srv-1", deviceId: String = "dev1", token: String = "tok", name: String = "n") -> String {
        let server = #"{"id":\#(JSONValue.string(serverId).jsonText),"name":\#(JSONValue.string(name).jsonText),"version":"1"}"#
        let device = JSONValue.string(deviceId).jsonText
        let credential = JSONValue.string(token).jsonText
        return #"{"kind":"helloAck","version":1,"ok":true,"server":\#(server),"deviceId":\#(device),"deviceToken":\#(credential),"#
            + #""lastSeq":0}"#
    }

    @Test func aPendingPairingWithAHugeExpiryFailsCleanly() async throws {
        let (result, rows) = try await Self.pair(answering: [
            #"{"kind":"pairingPending","deviceId":"dev1","check":"0427","expiresAt":1e300}"#, Self.ack(),
        ])
        guard case .failure(let error) = result else {
            Issue.record("linked: \(result)")
            return
        }
        #expect("\(error)".contains("pairingPending.expiresAt"), "\(error)")
        #expect(rows.isEmpty)
    }

    @Test(arguments: [
        Self.ack(serverId: "../../x\u{1B}]0;t\u{07}"), Self.ack(serverId: ""), Self.ack(serverId: String(repeating: "a", count: 200)),
        Self.ack(deviceId: "dev 1"), Self.ack(token: "a\nb"), Self.ack(token: ""),
    ])
    func idsThisBridgeWouldNotKeepAreRefused(ack: String) async throws {
        let (result, rows) = try await Self.pair(answering: [ack])
        guard case .failure(let error) = result else {
            Issue.record("linked: \(result)")
            return
        }
        #expect("\(error)".contains("does not accept"), "\(error)")
        #expect(rows.isEmpty)
    }

    @Test func aNameWithControlCharactersIsKeptAsText() async throws {
        let (result, _) = try await Self.pair(answering: [Self.ack(name: "\u{1B}]52;c;eA==\u{07}Build\u{202E}box")])
        let machine = try result.get()
        #expect(machine.name == "]52;c;eA==Buildbox")
    }
}
