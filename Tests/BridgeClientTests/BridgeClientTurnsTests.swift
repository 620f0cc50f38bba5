import BridgeProtocol
import Foundation
import Logging
import Testing

@testable import BridgeClient

/// The typed calls of issue 15: each sends its request with the right fields and returns the typed answer; a
/// refusal surfaces as ``BridgeRequestError`` with the bridge's code.
@Suite(.timeLimit(.minutes(1))) struct BridgeClientTurnsTests {
    let server = ServerInfo(id: "SRV", name: "test", version: "0")

    func connected() async throws -> (BridgeClient, FakeConnection, AsyncStream<[String: JSONValue]>.AsyncIterator) {
        let connection = FakeConnection()
        let client = BridgeClient(
            configuration: BridgeClientConfiguration(
                target: try BridgeTarget(parsing: "codex-bridge://pair?v=1&host=127.0.0.1&port=9&code=CODE&id=SRV&name=t"),
                device: DeviceInfo(name: "t", platform: "linux"), backoff: ReconnectBackoff(initialDelay: .milliseconds(10), maxAttempts: 1)
            ),
            transport: FakeTransport([connection]), logger: Logger(label: "test"))
        var sent = connection.sentFrames.makeAsyncIterator()
        try connection.answer(.helloAck(HelloAck(version: 1, ok: true, server: server, deviceId: "dev", deviceToken: "TOKEN", lastSeq: 0)))
        _ = try await client.connect()
        _ = await sent.next()  // hello
        return (client, connection, sent)
    }

    @Test func answerInputSendsTheAnswersAndReturnsTheAcceptance() async throws {
        var (client, connection, sent) = try await connected()
        async let answered = client.answerInput(requestId: "in-1", answers: ["colour": ["Blue"]])
        let frame = try #require(await sent.next())
        #expect(frame["kind"] == "answerInput" && frame["requestId"] == "in-1")
        #expect(frame["answers"] == ["colour": ["Blue"]])
        try connection.answer(.response(id: frame["id"]?.stringValue ?? "", .accepted(Accepted(threadId: "t", requestId: "in-1"))))
        #expect(try await answered.requestId == "in-1")

        let late = Task { try await client.answerInput(requestId: "in-1", action: .decline) }
        let second = try #require(await sent.next())
        #expect(second["action"] == "decline" && second["answers"] == nil)
        try connection.answer(.error(ErrorMessage(id: second["id"]?.stringValue, code: .inputNotPending, message: "not pending")))
        await #expect(throws: BridgeRequestError.self) { try await late.value }
        await client.close()
    }

    @Test func queueCancelAndSearch() async throws {
        var (client, connection, sent) = try await connected()
        async let queued = client.sendMessage(threadId: "t", text: "next", mode: .queue, attachments: ["up-1"])
        let frame = try #require(await sent.next())
        #expect(frame["kind"] == "sendMessage" && frame["mode"] == "queue" && frame["attachments"] == ["up-1"])
        try connection.answer(.response(id: frame["id"]?.stringValue ?? "", .accepted(Accepted(threadId: "t", queuedId: "q-1"))))
        #expect(try await queued.queuedId == "q-1")

        async let cancelled = client.cancelQueued(threadId: "t", queuedId: "q-1")
        let cancel = try #require(await sent.next())
        #expect(cancel["kind"] == "cancelQueued" && cancel["queuedId"] == "q-1" && cancel["threadId"] == "t")
        try connection.answer(.response(id: cancel["id"]?.stringValue ?? "", .accepted(Accepted(threadId: "t", queuedId: "q-1"))))
        #expect(try await cancelled.queuedId == "q-1")

        async let found = client.searchFiles(threadId: "t", query: "dat")
        let search = try #require(await sent.next())
        #expect(search["kind"] == "searchFiles" && search["query"] == "dat")
        let matches = FileMatches(threadId: "t", query: "dat", files: [FileMatch(path: "app/dates.py", score: 90, matchType: "file")])
        try connection.answer(.response(id: search["id"]?.stringValue ?? "", .files(matches)))
        #expect(try await found == matches)

        async let reviewed = client.startReview(threadId: "t", target: .base("main"))
        let review = try #require(await sent.next())
        #expect(review["kind"] == "startReview" && review["target"] == ["base": "main"])
        try connection.answer(.response(id: review["id"]?.stringValue ?? "", .accepted(Accepted(threadId: "t", turnId: "rv"))))
        #expect(try await reviewed.turnId == "rv")

        // An answer of the wrong kind is an error, not a silent nil.
        let wrong = Task { try await client.searchFiles(threadId: "t", query: "x") }
        let third = try #require(await sent.next())
        try connection.answer(.response(id: third["id"]?.stringValue ?? "", .accepted(Accepted())))
        await #expect(throws: BridgeClient.UnexpectedAnswer.self) { try await wrong.value }
        await client.close()
    }
}
