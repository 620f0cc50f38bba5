import BridgeFleet
import BridgeHub
import BridgeOps
import BridgePreview
import BridgePreviewProxy
import BridgeProtocol
import BridgeStore
import CodexControl
import ConfinedFiles
import Foundation
import Logging

extension ServeBuild {
    /// What the hub step made: codex's supervisor (and the shared app-server), the hub, its notifications and
    /// previews, and the fleet of linked machines.
    struct Core: Sendable {
        let supervisor: CodexSupervisor
        let shared: ServeShared?
        let hub: ThreadHub
        let notifications: ServePush
        let previews: Previews
        let fleet: FleetLinks
    }

    /// Makes the hub over codex, the policy, the journal, uploads, notifications and previews; the fleet's links
    /// beside it; and the notifications' `/push/action` route, which answers through both. The hub is made here
    /// and nowhere else.
    static func makeHub(_ settings: ServeSettings, state: State, tls: TLS, logger: Logger) throws -> Core {
        let (supervisor, shared) = codex(settings, roots: state.roots, logger: logger)
        var sandboxes: Set<String> = ["read-only", "workspace-write"]
        if settings.allowDangerFullAccess { sandboxes.insert("danger-full-access") }
        let pairing = state.pairing
        var notifications = try ServePush.prepare(settings.push, paths: state.paths, devices: pairing.registry, logger: logger)
        let previews = Previews(
            host: ServePairing.isWildcard(pairing.host) ? pairing.preferredHost ?? "localhost" : pairing.host, secure: tls.source != nil,
            probe: { host, port in await HTTPProbe().speaksHTTP(host: host, port: port) })
        let hub: ThreadHub
        do {
            hub = try ThreadHub(
                codex: supervisor, policy: .init(roots: state.roots, allowedSandboxes: sandboxes), storage: state.storage, logger: logger,
                uploads: state.uploads, push: notifications.coordinator, inhibitor: notifications.inhibitor, previews: previews)
        } catch {
            throw ServeError(.hub, .journal, "cannot open the event journal in \(state.paths.databaseFile.path): \(error)")
        }
        // The machines linked to this one (`codex-bridge machines add`): a fleet session sees their threads too, and a
        // notification's answer to one of their approvals goes to them.
        let fleet = FleetLinks(
            home: MachineRef(id: pairing.identity.id, name: pairing.identity.name), hub: hub, journal: state.storage.journal,
            store: MachineStore(database: pairing.registry.database), logger: logger)
        notifications = notifications.withRoute(
            hub: hub, devices: pairing.registry, answerer: FleetNotificationAnswerer(hub: hub, links: fleet))
        return Core(supervisor: supervisor, shared: shared, hub: hub, notifications: notifications, previews: previews, fleet: fleet)
    }

    /// Codex's supervisor: a private `codex app-server` child, or with `--shared` a connection to the shared one
    /// (started by this bridge when none runs).
    private static func codex(_ settings: ServeSettings, roots: WorkspaceRoots, logger: Logger) -> (CodexSupervisor, ServeShared?) {
        let configuration = CodexSupervisor.Configuration(
            locator: CodexLocator(explicitPath: settings.codex, searchRoots: CodexLocator.checkoutRoots),
            server: .init(configOverrides: settings.codexConfig, clientVersion: BridgeVersion.current))
        let shared =
            settings.shared
            ? ServeShared(socketPath: settings.sharedSocket, codex: configuration, workingDirectory: roots.paths.first, logger: logger)
            : nil
        return (CodexSupervisor(configuration: shared?.connectionConfiguration ?? configuration, logger: logger), shared)
    }
}
