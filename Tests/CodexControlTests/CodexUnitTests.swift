import BridgeProtocol
import Foundation
import Testing

@testable import CodexControl

@Suite("CodexControl pure parts")
struct CodexUnitTests {
    @Test("wire lines classify as response, error, notification and server request")
    func parseLines() throws {
        #expect(try CodexWireMessage(line: #"{"id":1,"result":{"ok":true}}"#) == .response(id: 1, result: ["ok": true]))
        #expect(
            try CodexWireMessage(line: #"{"id":2,"error":{"code":-32001,"message":"busy"}}"#)
                == .errorResponse(id: 2, code: -32001, message: "busy", data: nil))
        #expect(
            try CodexWireMessage(line: #"{"method":"turn/started","params":{"threadId":"t"},"emittedAtMs":1}"#)
                == .notification(method: "turn/started", params: ["threadId": "t"], paramsJSON: #"{"threadId":"t"}"#))
        // The params' own text is kept verbatim (key order, escapes, number form) for relaying.
        #expect(
            try CodexWireMessage(line: #"{"params": {"z":1.50,"a":"é\/"} ,"method":"m"}"#)
                == .notification(method: "m", params: ["z": .number(1.5), "a": "é/"], paramsJSON: #"{"z":1.50,"a":"é\/"}"#))
        #expect(
            try CodexWireMessage(line: #"{"id":"a-1","method":"item/fileChange/requestApproval","params":{}}"#)
                == .request(id: "a-1", method: "item/fileChange/requestApproval", params: [:]))
        #expect(throws: CodexError.self) { try CodexWireMessage(line: "not json") }
        #expect(throws: CodexError.self) { try CodexWireMessage(line: "[1]") }
    }

    @Test("encoded requests are one line without a jsonrpc member; ids echo unchanged")
    func encode() throws {
        let line = try CodexWireMessage.request(id: 7, method: "thread/list", params: ["limit": 1]).encoded()
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(line.dropLast().contains(UInt8(ascii: "\n")) == false)
        let text = String(decoding: line, as: UTF8.self)
        #expect(!text.contains("jsonrpc"))
        #expect(try CodexWireMessage(line: text.dropLast()) == .request(id: 7, method: "thread/list", params: ["limit": 1]))
        let answer = String(decoding: try CodexWireMessage.response(id: 0, result: ["decision": "accept"]).encoded(), as: UTF8.self)
        #expect(answer.contains(#""id":0"#))
    }

    @Test("CodexStream keeps order, applies backpressure, and ends after finish")
    func streamBackpressure() async {
        let stream = CodexStream<Int>(capacity: 4)
        async let produced: Void = {
            for i in 0..<1000 { await stream.send(i) }
            stream.finish()
        }()
        var received: [Int] = []
        for await value in stream {
            received.append(value)
            if value % 100 == 0 { await Task.yield() }
        }
        await produced
        #expect(received == Array(0..<1000))
        #expect(await stream.send(1) == false)
    }

    @Test("CodexStream batches: send(contentsOf:) hands over in order, poll(limit:) takes what waits and frees producers")
    func streamBatches() async {
        let stream = CodexStream<Int>(capacity: 8)
        async let produced: Void = {
            for start in stride(from: 0, to: 1000, by: 50) { await stream.send(contentsOf: Array(start..<start + 50)) }
            stream.finish()
        }()
        var received: [Int] = []
        var batches = 0
        for await first in stream {
            received.append(first)
            received += stream.poll(limit: 31)
            batches += 1
        }
        await produced
        #expect(received == Array(0..<1000))
        #expect(batches < 1000)  // several elements per wake-up
        #expect(stream.poll(limit: 5).isEmpty)
    }

    @Test("error codes compare and describe")
    func errors() {
        let error = CodexError.rpc(code: -32600, message: "Not initialized")
        #expect(error.code == .rpc)
        #expect(error.rpcCode == -32600)
        #expect(error.description.contains("Not initialized"))
        #expect(CodexError.unavailable("x").code != .exited)
        #expect(CodexRequestID(generation: 2, value: 5).description == "2:5")
    }
}

/// Regression (issue 11, finding 7): the locator ran a `.venv-codex` planted in the working directory or next to
/// the state directory, and candidates anyone could write.
@Suite struct CodexLocatorTrustTests {
    @Test func plantedVirtualenvsAreNotSearched() async throws {
        let directory = try TestSupport.temporaryDirectory("planted")
        let bin = directory.appendingPathComponent(".venv-codex/lib/python3.11/site-packages/codex_cli_bin/bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let codex = try FakeCodex.install(in: bin, mode: "normal")
        try FileManager.default.moveItem(atPath: codex, toPath: bin.appendingPathComponent("codex").path)
        let previous = FileManager.default.currentDirectoryPath
        #expect(FileManager.default.changeCurrentDirectoryPath(directory.path))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        let locator = CodexLocator(
            environment: [
                "PATH": "/nonexistent:.", "HOME": "/nonexistent", "CODEX_BRIDGE_HOME": directory.appendingPathComponent("state").path,
            ],
            askPython: false)
        #expect(locator.virtualenvCandidates().allSatisfy { !$0.hasPrefix(directory.path) })
        await #expect(throws: CodexError.self) { _ = try await locator.locate() }
    }

    /// Regression (issue 46 item 3): after `Scripts/run` made the checkout's `.venv-codex`, these tests found it
    /// from the test binary's path (the locator added the executable's ancestors itself). Only the roots a locator
    /// is given are searched; the bridge gives it the checkout it was built in.
    @Test func onlyTheGivenRootsAreSearched() {
        let environment = ["PATH": "/nonexistent", "HOME": "/nonexistent"]
        let checkout = TestSupport.repositoryRoot.appendingPathComponent(".venv-codex").path
        #expect(
            CodexLocator(environment: environment, askPython: false).virtualenvCandidates() == [
                "/nonexistent/.local/share/codex-bridge/venv"
            ])
        #expect(
            CodexLocator(environment: environment, searchRoots: CodexLocator.checkoutRoots, askPython: false).virtualenvCandidates()
                .contains(checkout))
    }

    @Test func candidatesOthersCanWriteAreRefused() async throws {
        let directory = try TestSupport.temporaryDirectory("writable")
        let codex = try FakeCodex.install(in: directory, mode: "normal")
        let named = directory.appendingPathComponent("codex").path
        try FileManager.default.moveItem(atPath: codex, toPath: named)
        chmod(directory.path, 0o755)
        chmod(named, 0o755)
        let onPath = CodexLocator(environment: ["PATH": directory.path], askPython: false)
        #expect(try await onPath.locate() == named)
        chmod(named, 0o777)
        #expect(CodexLocator.trustProblem(named)?.contains("writable by group or others") == true)
        await #expect(throws: CodexError.self) { _ = try await onPath.locate() }
        chmod(named, 0o755)
        chmod(directory.path, 0o777)
        await #expect(throws: CodexError.self) { _ = try await onPath.locate() }
        await #expect { _ = try await CodexLocator(explicitPath: named, askPython: false).locate() } throws: { error in
            (error as? CodexError)?.message.contains("is not run") == true
        }
        chmod(directory.path, 0o755)
    }

    @Test("a link in a directory others can write is refused, even when it points to a safe file")
    func linksInWritableDirectoriesAreRefused() async throws {
        let directory = try TestSupport.temporaryDirectory("linked")
        let safe = directory.appendingPathComponent("safe")
        let open = directory.appendingPathComponent("open")
        try FileManager.default.createDirectory(at: safe, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: true)
        let codex = try FakeCodex.install(in: safe, mode: "normal")
        let target = safe.appendingPathComponent("codex").path
        try FileManager.default.moveItem(atPath: codex, toPath: target)
        chmod(safe.path, 0o755)
        chmod(target, 0o755)
        let link = open.appendingPathComponent("codex").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        // In a directory only its owner writes, the link is fine.
        chmod(open.path, 0o755)
        #expect(CodexLocator.trustProblem(link) == nil)
        #expect(try await CodexLocator(environment: ["PATH": open.path], askPython: false).locate() == link)
        // Anyone can swap the link in an open directory between the check and the exec.
        chmod(open.path, 0o777)
        #expect(CodexLocator.trustProblem(link)?.contains(open.path) == true)
        await #expect(throws: CodexError.self) { _ = try await CodexLocator(environment: ["PATH": open.path], askPython: false).locate() }
        await #expect(throws: CodexError.self) { _ = try await CodexLocator(explicitPath: link, askPython: false).locate() }
        chmod(open.path, 0o755)
    }
}
