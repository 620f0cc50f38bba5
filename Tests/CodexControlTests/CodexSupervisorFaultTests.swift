import BridgeProtocol
import CodexControl
import Eventually
import Foundation
import Testing

/// The supervisor against a fake codex: crashes, absence, floods, hangs.
@Suite("CodexSupervisor fault injection", .timeLimit(.minutes(1)))
struct CodexSupervisorFaultTests {
    private func supervisor(fake mode: String, in directory: URL, _ adjust: (inout CodexSupervisor.Configuration) -> Void = { _ in })
        throws -> CodexSupervisor
    {
        let path = try FakeCodex.install(in: directory, mode: mode)
        var configuration = CodexSupervisor.Configuration(
            locator: CodexLocator(explicitPath: path),
            server: .init(handshakeTimeout: .seconds(30), terminationGracePeriod: .seconds(2)),
            initialBackoff: .milliseconds(100)
        )
        adjust(&configuration)
        return CodexSupervisor(configuration: configuration, logger: TestSupport.logger("fake-\(mode)"))
    }

    @Test("a codex that exits mid-turn: stopped, then restarted as generation 2, and requests work again")
    func restartAfterCrash() async throws {
        let directory = try TestSupport.temporaryDirectory("crash")
        let supervisor = try supervisor(fake: "crash-mid-turn", in: directory)
        try await supervisor.withRunning { recorder in
            try await recorder.wait("started 1") { $0.contains(.started(generation: 1)) ? true : nil }
            let threadId = try await supervisor.threadStart(cwd: directory.path)
            #expect(threadId == "thread-1")
            _ = try await supervisor.turnStart(threadId: threadId, text: "go")
            let reason = try await recorder.wait("stopped 1") { events in
                events.lazy.compactMap { event -> String? in
                    if case .stopped(1, let reason) = event { return reason }
                    return nil
                }.first
            }
            #expect(reason.contains("status 3"))
            // Sent while codex restarts: the request waits for generation 2 and goes to it.
            #expect(try await supervisor.threadStart(cwd: directory.path) == "thread-2")
            try await recorder.wait("started 2") { $0.contains(.started(generation: 2)) ? true : nil }
            #expect(supervisor.currentGeneration == 2)
            let events = recorder.events
            let startedIndex = try #require(events.firstIndex(of: .started(generation: 1)))
            let turnStarted = try #require(
                events.firstIndex { if case .inbound(.notification(let note)) = $0 { note.kind == .turnStarted } else { false } })
            let stoppedIndex = try #require(events.firstIndex { if case .stopped(1, _) = $0 { true } else { false } })
            #expect(startedIndex < turnStarted && turnStarted < stoppedIndex)
        }
    }

    @Test("a missing codex: requests throw unavailable with the install hint")
    func missingBinary() async throws {
        let directory = try TestSupport.temporaryDirectory("missing")
        let configuration = CodexSupervisor.Configuration(
            locator: CodexLocator(explicitPath: directory.appendingPathComponent("no-such-codex").path),
            initialBackoff: .milliseconds(100)
        )
        let supervisor = CodexSupervisor(configuration: configuration, logger: TestSupport.logger("missing"))
        try await supervisor.withRunning { recorder in
            let error = try await waitForUnavailable(supervisor)
            #expect(error.code == .unavailable)
            #expect(error.message.contains("pip install openai-codex-cli-bin"))
            #expect(recorder.events.isEmpty)
        }
    }

    @Test("nothing on PATH, no venv, no python package: the locator's error says how to install codex")
    func locatorInstallHint() async throws {
        let directory = try TestSupport.temporaryDirectory("locator")
        let locator = CodexLocator(
            environment: ["PATH": directory.path, "HOME": directory.path],
            searchRoots: [directory.path],
            askPython: false
        )
        await #expect {
            _ = try await locator.locate()
        } throws: { error in
            guard let error = error as? CodexError else { return false }
            return error.code == .unavailable && error.message.contains("pip install openai-codex-cli-bin")
                && error.message.contains("Scripts/run")
        }
        // A venv laid out like the PyPI package is found.
        let bin = directory.appendingPathComponent(".venv-codex/lib/python3.11/site-packages/codex_cli_bin/bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let codex = try FakeCodex.install(in: bin, mode: "normal")
        try FileManager.default.moveItem(atPath: codex, toPath: bin.appendingPathComponent("codex").path)
        #expect(try await locator.locate() == bin.appendingPathComponent("codex").path)
    }

    @Test("100k notifications arrive complete and in order")
    func flood() async throws {
        let directory = try TestSupport.temporaryDirectory("flood")
        let supervisor = try supervisor(fake: "normal", in: directory) { $0.eventCapacity = 256 }
        let count = 100_000
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await supervisor.run() }
            group.addTask {
                let result = try await supervisor.request("test/flood", params: ["count": .number(Double(count))], timeout: .seconds(50))
                #expect(result["sent"]?.intValue == count)
            }
            var expected = 0
            var outOfOrder = 0
            for await event in supervisor.events {
                guard case .inbound(.notification(let note)) = event, note.method == "flood" else { continue }
                let params = note.params
                if params["i"]?.intValue != expected { outOfOrder += 1 }
                expected += 1
                if expected == count { break }
            }
            #expect(expected == count)
            #expect(outOfOrder == 0)
            try await group.next()  // the request finished
            supervisor.shutdown()
            try await group.waitForAll()
        }
    }

    @Test("server requests carry their generation and id; respond echoes the id exactly")
    func approvalRoundTrip() async throws {
        let directory = try TestSupport.temporaryDirectory("approval")
        let supervisor = try supervisor(fake: "normal", in: directory)
        try await supervisor.withRunning { recorder in
            _ = try await supervisor.request("test/approval", params: [:], timeout: .seconds(30))
            let id = try await recorder.wait("approval request") { events in
                events.lazy.compactMap { event -> CodexRequestID? in
                    if case .inbound(.serverRequest(let id, "item/commandExecution/requestApproval", _)) = event { return id }
                    return nil
                }.first
            }
            #expect(id == CodexRequestID(generation: 1, value: "approval-7"))
            #expect(throws: CodexError.self) {
                try supervisor.respond(to: CodexRequestID(generation: 9, value: "approval-7"), result: [:])
            }
            try supervisor.respond(to: id, result: ["decision": "accept"])
            let answer = try await recorder.wait("answer echoed") { _ in
                recorder.notifications.first { $0.method == "test/approvalAnswered" }?.params
            }
            #expect(answer["answer"] == ["decision": "accept"])
            await #expect {
                _ = try await supervisor.request("test/error", params: [:], timeout: .seconds(30))
            } throws: { error in
                (error as? CodexError)?.rpcCode == -32001 && (error as? CodexError)?.message == "overloaded"
            }
        }
    }

    @Test("a codex that stops answering is restarted by the watchdog")
    func watchdogRestart() async throws {
        let directory = try TestSupport.temporaryDirectory("hang")
        let supervisor = try supervisor(fake: "hang", in: directory) {
            $0.watchdogInterval = .milliseconds(200)
            $0.watchdogTimeout = .milliseconds(300)
            $0.watchdogFailures = 2
        }
        try await supervisor.withRunning { recorder in
            let reason = try await recorder.wait("stopped 1") { events in
                events.lazy.compactMap { event -> String? in
                    if case .stopped(1, let reason) = event { return reason }
                    return nil
                }.first
            }
            #expect(reason.contains("stopped answering"))
            try await recorder.wait("started 2") { $0.contains(.started(generation: 2)) ? true : nil }
        }
    }

    @Test("shutdown terminates the child and ends the event stream with stopped")
    func gracefulShutdown() async throws {
        let directory = try TestSupport.temporaryDirectory("shutdown")
        let supervisor = try supervisor(fake: "normal", in: directory)
        let recorder = try await supervisor.withRunning { recorder in
            try await recorder.wait("started 1") { $0.contains(.started(generation: 1)) ? true : nil }
            return recorder
        }
        let last = try #require(recorder.events.last)
        guard case .stopped(1, _) = last else {
            Issue.record("the last event is \(last), not stopped(1)")
            return
        }
        await #expect(throws: CodexError.self) {
            _ = try await supervisor.request("thread/list", params: [:], timeout: .seconds(1))
        }
    }

    private func waitForUnavailable(_ supervisor: CodexSupervisor) async throws -> CodexError {
        try await eventually("requests to fail as unavailable") { () -> CodexError? in
            do {
                _ = try await supervisor.request("thread/list", params: [:], timeout: .milliseconds(100))
            } catch let error as CodexError where error.code == .unavailable {
                return error
            } catch {}
            return nil
        }
    }
}
