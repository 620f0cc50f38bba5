import BridgeProtocol
import CodexControl
import Eventually
import Foundation
import Testing

/// `serve --shared`'s Codex side against the real codex: ``SharedAppServer`` starts `codex app-server --listen
/// unix://…`, and a ``CodexSupervisor`` with a socket path talks to it (WebSocket over the unix socket).
@Suite("Shared codex app-server", .timeLimit(.minutes(1)))
struct CodexSharedSocketTests {
    @Test("a turn over the unix-socket WebSocket; the app-server goes away (unavailable) and comes back (reconnected)")
    func sharedSocketRoundTrip() async throws {
        let directory = try TestSupport.temporaryDirectory("shared")
        // A unix socket path has at most 107 bytes: keep it short.
        let socketDirectory = URL(fileURLWithPath: "/tmp/ccs-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: socketDirectory, withIntermediateDirectories: true)
        let socket = socketDirectory.appendingPathComponent("codex.sock").path
        let model = try await MockModelProcess.start(script: [["kind": "message", "text": "Over the socket."]], directory: directory)
        defer {
            model.stop()
            TestSupport.cleanUp(directory)
            try? FileManager.default.removeItem(at: socketDirectory)
        }
        let codex = try await TestSupport.realCodex()
        var configuration = CodexSupervisor.Configuration(
            locator: CodexLocator(explicitPath: codex), server: try TestSupport.codexOptions(port: model.port, home: directory),
            initialBackoff: .milliseconds(100), maxBackoff: .milliseconds(500))
        #expect(!SharedSocket.answers(at: socket))
        let appServer = SharedAppServer(socketPath: socket, configuration: configuration, logger: TestSupport.logger("shared-app-server"))
        #expect(appServer.arguments.prefix(3) == ["app-server", "--listen", "unix://\(socket)"])
        var launched = Task { try await appServer.run() }
        configuration.server.socketPath = socket
        configuration.unavailableAfter = .milliseconds(300)
        let supervisor = CodexSupervisor(configuration: configuration, logger: TestSupport.logger("shared-client"))
        #expect(supervisor.isShared)
        try await supervisor.withRunning { recorder in
            try await recorder.wait("connected") { $0.contains { if case .started = $0 { true } else { false } } ? true : nil }
            #expect(appServer.launchedByBridge)
            let threadId = try await supervisor.threadStart(cwd: directory.path)
            let turnId = try await supervisor.turnStart(threadId: threadId, text: "hi")
            let completed = try await recorder.wait("turn/completed") { _ in
                recorder.notifications.first { $0.method == "turn/completed" && $0.params["turn"]?["id"]?.stringValue == turnId }
            }
            #expect(completed.params["turn"]?["status"] == "completed")
            let text = recorder.notifications.first { $0.method == "item/completed" && $0.params["item"]?["type"] == "agentMessage" }
            #expect(text?.params["item"]?["text"]?.stringValue == "Over the socket.")

            // The app-server goes away: the connection's generation stops, requests fail fast as unavailable.
            launched.cancel()
            _ = try await launched.value
            try await recorder.wait("stopped") { $0.contains { if case .stopped = $0 { true } else { false } } ? true : nil }
            let unavailable = try await eventually("requests to fail as unavailable") { () -> CodexError? in
                do {
                    _ = try await supervisor.request("thread/list", params: [:], timeout: .milliseconds(200))
                } catch let error as CodexError where error.code == .unavailable {
                    return error
                } catch {}
                return nil
            }
            #expect(unavailable.message.contains(socket))

            // Back: the supervisor reconnects by itself (a new generation) and the thread is there.
            launched = Task { try await appServer.run() }
            try await recorder.wait("reconnected") { events in
                events.filter { if case .started = $0 { true } else { false } }.count >= 2 ? true : nil
            }
            let read = try await supervisor.threadRead(threadId: threadId, includeTurns: false)
            #expect(read["id"]?.stringValue == threadId)
            launched.cancel()
            _ = try await launched.value
        }
    }
}
