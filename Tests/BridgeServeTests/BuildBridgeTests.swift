import BridgeClient
import BridgeProtocol
import BridgeServer
import BridgeStore
import Foundation
import Logging
import Prometheus
import Testing

@testable import BridgeServe

/// `serve` in-process: ``buildBridge(_:paths:logger:metrics:)`` on 127.0.0.1 port 0, and a real client.
@Suite(.timeLimit(.minutes(1))) struct BuildBridgeTests {
    @Test func theBuiltBridgeAnswersHelloOnLoopback() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("build-bridge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // A codex that exits at once: the handshake needs none.
        let codex = directory.appendingPathComponent("codex")
        try Data("#!/bin/sh\nexit 1\n".utf8).write(to: codex)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: codex.path)
        var settings = ServeSettings()
        settings.listen = ListenAddress(host: "127.0.0.1", port: 0)
        settings.qr = false
        settings.mdns = false
        settings.push.inhibit = false
        settings.codex = codex.path
        settings.roots = [directory.path]
        let paths = StatePaths.resolve(override: directory.appendingPathComponent("state").path)
        let logger = Logger(label: "build-bridge-test") { _ in SwiftLogNoOpLogHandler() }

        let bridge = try await buildBridge(settings, paths: paths, logger: logger, metrics: PrometheusCollectorRegistry())
        let running = Task { try await bridge.run(gracefulShutdownSignals: []) }
        defer { running.cancel() }
        let address = try #require(await bridge.listeningAddress())
        #expect(address.port != 0)

        let client = BridgeClient(
            configuration: BridgeClientConfiguration(
                target: try BridgeTarget(parsing: "127.0.0.1:\(address.port)"), token: try SharedSecret(paths: paths).loadOrCreate(),
                reconnects: false),
            logger: logger)
        let ack = try await client.connect()
        #expect(ack.ok)
        #expect(ack.server?.id == (try ServerIdentity.loadOrCreate(paths: paths)).id)
        await client.close()
        running.cancel()
        _ = try? await running.value
    }
}
