import BridgeStore
import Logging
import Prometheus

/// Builds everything `serve` runs from its settings, in named steps: the state (ports, codex, the state
/// directory and its secrets, the roots, the pairing, the journal, uploads), TLS, the hub (codex, notifications,
/// previews, the fleet), the server (its routes and the preview origin) and the services in start order, which
/// ``ServeBridge/run(gracefulShutdownSignals:)`` runs. Tests call it in-process (port 0, no QR, no mDNS).
/// - Parameters:
///   - logger: the process's logger (the command bootstraps the logging system; tests never do).
///   - metrics: the registry `/metrics` serves (the command bootstraps the metrics system with it).
/// - Throws: ``ServeError`` naming the step that failed, with a code and one line for the user.
package func buildBridge(_ settings: ServeSettings, paths: StatePaths, logger: Logger, metrics: PrometheusCollectorRegistry) async throws
    -> ServeBridge
{
    var state = try await ServeBuild.prepareState(settings, paths: paths, logger: logger)
    let tls = try await ServeBuild.prepareTLS(settings, state: &state, logger: logger)
    let core = try ServeBuild.makeHub(settings, state: state, tls: tls, logger: logger)
    let server = ServeBuild.makeServer(settings, state: state, tls: tls, core: core, metrics: metrics, logger: logger)
    let services = await ServeBuild.services(settings, state: state, tls: tls, core: core, server: server, logger: logger)
    return ServeBridge(services: services, listening: server.listening, paths: paths, logger: logger)
}

/// The steps of ``buildBridge(_:paths:logger:metrics:)``, one file each, each handing the next what it made.
enum ServeBuild {}
