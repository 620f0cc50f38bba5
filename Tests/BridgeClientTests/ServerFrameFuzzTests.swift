import BridgeProtocol
import Foundation
import HostileBridge
import Logging
import Synchronization
import Testing

@testable import BridgeClient

/// Issue 44, item 1: a real `BridgeClient` against a hostile bridge on 127.0.0.1 (a real WebSocket server), one
/// connection per hostile frame: every member of every server frame (``FrameMutations``) made huge, negative,
/// not finite, of the wrong type, or missing, as the answer to `hello` and after it, plainly and as a relay.
/// Whatever comes, the client ends with a clear error (``BridgeClientError/Code/protocolViolation``, naming the
/// member) or goes on working; it never traps (the test process is the proof) and never hangs.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ServerFrameFuzzTests {
    enum Stage: Sendable { case handshake, afterHandshake }

    struct Run: Sendable {
        var mutation: FrameMutations.Case
        var stage: Stage
        var relays: Bool
    }

    enum Outcome: Sendable, Equatable {
        /// Still connected: a request after the frame was answered.
        case working
        /// Closed with `protocolViolation` (its message).
        case violation(String)
        /// Some other clear error (e.g. the handshake answer was a refusal).
        case failed(String)
        case hung
    }

    static let goodAck =
        #"{"kind":"helloAck","version":1,"ok":true,"server":{"id":"SRV","name":"n","version":"1"},"lastSeq":0,"restoredSubscriptions":["*"]}"#

    /// Plays the bridge for every run: the run's number is the client id the client says hello with.
    static func bridge(_ runs: [Run]) async throws -> HostileBridge {
        try await HostileBridge.start { peer in
            guard let hello = await peer.receive(),
                case .object(let object)? = try? JSONValue(parsing: Data(hello.utf8)),
                let id = object["clientId"]?.stringValue, let index = Int(id.dropFirst(4)), runs.indices.contains(index)
            else { return }
            let run = runs[index]
            switch run.stage {
            case .handshake:
                try await peer.send(run.mutation.text)
                if run.mutation.sample == "pairingPending" { try await peer.send(goodAck) }
            case .afterHandshake:
                try await peer.send(goodAck)
                try await peer.send(run.mutation.text)
            }
            while let text = await peer.receive() {
                guard case .object(let request)? = try? JSONValue(parsing: Data(text.utf8)), let id = request["id"]?.stringValue else {
                    continue
                }
                try await peer.send(#"{"kind":"threads","id":\#(JSONValue.string(id).jsonText),"threads":[]}"#)
            }
        }
    }

    static func outcome(of run: Run, index: Int, port: Int) async -> Outcome {
        var configuration = BridgeClientConfiguration(
            target: .endpoints([BridgeEndpoint(host: "127.0.0.1", port: port)], pin: nil), token: "t", clientId: "run-\(index)",
            // An answer of a kind the client does not know is skipped: the handshake then times out.
            reconnects: false, handshakeTimeout: .seconds(2))
        configuration.relaysFrames = run.relays
        var logger = Logger(label: "fuzz")
        logger.logLevel = .critical
        let client = BridgeClient(configuration: configuration, logger: logger)
        let result = await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                do {
                    try await client.connect()
                    _ = try await client.send(BridgeRequest(.listThreads, ListThreads()))
                    return .working
                } catch let error as BridgeClientError {
                    return error.code == .protocolViolation ? .violation(error.message) : .failed(error.message)
                } catch {
                    return .failed("\(error)")
                }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(20))
                return .hung
            }
            let first = await group.next() ?? .hung
            group.cancelAll()
            return first
        }
        await client.close()
        return result
    }

    /// Runs every mutation at `stage`, 8 connections at a time; returns each outcome.
    static func fuzz(_ stage: Stage, samples: Set<String>? = nil) async throws -> [(Run, Outcome)] {
        var runs: [Run] = []
        for mutation in FrameMutations.all() where samples?.contains(mutation.sample) ?? true {
            runs.append(Run(mutation: mutation, stage: stage, relays: false))
            if stage == .afterHandshake, mutation.sample == "event" { runs.append(Run(mutation: mutation, stage: stage, relays: true)) }
        }
        let bridge = try await bridge(runs)
        defer { bridge.stop() }
        var outcomes: [(Run, Outcome)] = []
        try await withThrowingTaskGroup(of: (Run, Outcome).self) { group in
            var next = 0
            func start() {
                let index = next
                let run = runs[index]
                group.addTask { (run, await outcome(of: run, index: index, port: bridge.port)) }
                next += 1
            }
            while next < min(8, runs.count) { start() }
            while let done = try await group.next() {
                outcomes.append(done)
                if next < runs.count { start() }
            }
        }
        return outcomes
    }

    static func label(_ run: Run) -> String {
        "\(run.mutation.sample)\(run.mutation.path) = \(run.mutation.value.prefix(30))\(run.relays ? " (relay)" : "")"
    }

    @Test func everyMemberOfTheHandshakeAnswers() async throws {
        let outcomes = try await Self.fuzz(.handshake, samples: ["helloAck", "pairingPending"])
        #expect(outcomes.count > 400)
        for (run, outcome) in outcomes {
            #expect(outcome != .hung, "\(Self.label(run))")
            // A number out of range in the expiry or the cursor is refused by name, not converted.
            if ["pairingPending.expiresAt", "helloAck.lastSeq"].contains(run.mutation.sample + run.mutation.path),
                ["1e300", "-1e300", "-1", "-9223372036854775808"].contains(run.mutation.value)
            {
                guard case .violation(let message) = outcome else {
                    Issue.record("\(Self.label(run)): \(outcome)")
                    continue
                }
                #expect(message.contains(run.mutation.sample), "\(message)")
            }
        }
        let violations = outcomes.filter { if case .violation = $0.1 { true } else { false } }
        #expect(violations.count > 100 && outcomes.contains { $0.1 == .working })
    }

    @Test func everyMemberOfEveryFrameAfterTheHandshake() async throws {
        let outcomes = try await Self.fuzz(.afterHandshake, samples: Set(FrameMutations.samples.map(\.name)).subtracting(["helloAck"]))
        #expect(outcomes.count > 2000)
        var working = 0
        var violations = 0
        for (run, outcome) in outcomes {
            switch outcome {
            case .hung:
                Issue.record("hung: \(Self.label(run))")
            case .failed(let message):
                Issue.record("\(Self.label(run)): not a protocol violation: \(message)")
            case .violation(let message):
                violations += 1
                #expect(message.contains("bad frame"), "\(message)")
            case .working:
                working += 1
            }
            // A seq that is negative, fractional, beyond 64 bits, not a number or missing: the frame is refused.
            if run.mutation.path == ".seq", run.mutation.value != "9223372036854775807", outcome == .working {
                Issue.record("accepted \(Self.label(run))")
            }
            // A kind this client does not know is skipped; one that is not a string is a violation.
            if run.mutation.path == ".kind" {
                let expectWorking = run.mutation.value.hasPrefix("\"")
                #expect((outcome == .working) == expectWorking, "\(Self.label(run)): \(outcome)")
            }
        }
        #expect(working > 100 && violations > 1000, "working \(working), violations \(violations)")
    }

    /// The frames that are not even JSON objects with a kind.
    @Test(
        arguments: [
            "{", "null", "[]", "42", #""helloAck""#, #"{"kind":5}"#, #"{"nokind":1}"#, "NaN", "[" + String(repeating: "[", count: 10000),
        ])
    func garbageAfterTheHandshakeIsAViolation(text: String) async throws {
        let mutation = FrameMutations.Case(sample: "garbage", path: "", value: text, text: text)
        let run = Run(mutation: mutation, stage: .afterHandshake, relays: true)
        let bridge = try await Self.bridge([run])
        defer { bridge.stop() }
        let outcome = await Self.outcome(of: run, index: 0, port: bridge.port)
        guard case .violation(let message) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(message.contains("not a JSON object with a string kind"))
    }
}
