import BridgeHub
import BridgeOps
import BridgeStore
import BridgeTLS
import CodexControl
import ConfinedFiles
import Foundation
import Logging

extension ServeBuild {
    /// What the state step prepared: the roots, the pairing (identity, devices, connections), the journal and
    /// the uploads, and the pairings serve's own terminal asks about.
    struct State: Sendable {
        let paths: StatePaths
        let roots: WorkspaceRoots
        var pairing: ServePairing
        let storage: HubStorage
        let uploads: UploadStore
        /// The preview port (the main port + 1 unless `--preview-port` says otherwise), where tickets are exchanged.
        let previewPort: Int
        /// The preview origins' ports: the `--preview-origins` ports after the preview port (0s when it is 0).
        let originPorts: [Int]
        /// With `--confirm-pairing` on a terminal, serve asks y/N itself (``ServePairingPrompt``) about these.
        let prompting: Bool
        let asked: (stream: AsyncStream<PairingRequestRecord>, continuation: AsyncStream<PairingRequestRecord>.Continuation)
    }

    /// Checks the ports and codex, prepares the state directory and its secrets, resolves the roots, opens the
    /// pairing, the journal and the uploads directory.
    static func prepareState(_ settings: ServeSettings, paths: StatePaths, logger: Logger) async throws -> State {
        let (previewPort, originPorts) = try await checkStartup(settings, paths: paths)
        try prepareFiles(paths, logger: logger)
        let roots: WorkspaceRoots
        do {
            roots = try WorkspaceRoots(settings.roots.isEmpty ? [FileManager.default.currentDirectoryPath] : settings.roots)
        } catch {
            throw ServeError(.state, .roots, "\(error)")
        }
        let prompting = settings.confirmPairing && TerminalInput.isTerminal
        let asked = AsyncStream.makeStream(of: PairingRequestRecord.self)
        let toPrompt: @Sendable (PairingRequestRecord) -> Void = { _ = asked.continuation.yield($0) }
        var pairing = try await ServePairing.prepare(
            paths: paths, listen: settings.listen.host, name: settings.mdnsName,
            confirmation: settings.confirmPairing ? settings.confirmPairingTimeout.duration : nil,
            announce: prompting ? toPrompt : ServePairing.announce, logger: logger)
        if settings.shared { pairing.sharedSocket = settings.sharedSocket ?? SharedSocket.defaultPath() }
        let storage = HubStorage(
            database: pairing.registry.database,
            retention: JournalRetention(maxAge: settings.journalMaxAgeSeconds, maxBytes: settings.journalMaxBytes), logger: logger)
        let uploads: UploadStore
        do {
            uploads = try UploadStore(directory: paths.stateDirectory.appendingPathComponent("uploads"), maxBytes: settings.maxUploadBytes)
        } catch {
            throw ServeError(.state, .stateDirectory, "cannot prepare \(paths.stateDirectory.path)/uploads: \(error)")
        }
        return State(
            paths: paths, roots: roots, pairing: pairing, storage: storage, uploads: uploads, previewPort: previewPort,
            originPorts: originPorts, prompting: prompting, asked: asked)
    }

    /// A port in use is one clear line before any other output (the bind itself comes after the startup logs), and
    /// so is an explicit codex that cannot be run (a startup error, not a retry loop). Returns the preview port and
    /// the preview origins' ports.
    static func checkStartup(_ settings: ServeSettings, paths: StatePaths) async throws -> (previewPort: Int, originPorts: [Int]) {
        let host = settings.listen.host
        let checked = host.lowercased() != "tailscale"
        if settings.listen.port != 0, checked, PortProbe.bindError(host: host, port: settings.listen.port) == EADDRINUSE {
            throw ServeError(.state, .portInUse, PortProbe.inUseMessage(host: host, port: settings.listen.port, paths: paths))
        }
        let previewPort = settings.previewPort ?? (settings.listen.port == 0 ? 0 : settings.listen.port + 1)
        if previewPort != 0, checked, PortProbe.bindError(host: host, port: previewPort) == EADDRINUSE {
            throw ServeError(
                .state, .portInUse, "port \(previewPort), the preview port, is already in use; choose another with --preview-port PORT")
        }
        let originPorts =
            previewPort == 0
            ? Array(repeating: 0, count: settings.previewOrigins) : Array((previewPort + 1)...(previewPort + settings.previewOrigins))
        if settings.listen.port != 0, originPorts.contains(settings.listen.port) || previewPort == settings.listen.port {
            throw ServeError(
                .state, .previewPorts,
                "the preview port \(previewPort) and the \(settings.previewOrigins) ports after it would include the --listen port \(settings.listen.port); choose another --preview-port"
            )
        }
        if let last = originPorts.last, last > 65_535 {
            throw ServeError(
                .state, .previewPorts,
                "the \(settings.previewOrigins) preview origins after --preview-port \(previewPort) would end at port \(last), past 65535; choose a lower --preview-port or fewer --preview-origins"
            )
        }
        for port in originPorts where port != 0 && checked && PortProbe.bindError(host: host, port: port) == EADDRINUSE {
            throw ServeError(
                .state, .portInUse,
                "port \(port), one of the preview origins' (the \(settings.previewOrigins) ports after --preview-port \(previewPort)), is already in use; choose others with --preview-port PORT or --preview-origins N"
            )
        }
        if let codex = settings.codex, codex.contains("/") {
            do {
                _ = try await CodexLocator(explicitPath: codex, askPython: false).locate()
            } catch {
                throw ServeError(.state, .codexUnavailable, error.message)
            }
        }
        return (previewPort, originPorts)
    }

    /// The state directory (0700), the secrets this bridge owns kept 0600 (tightened, and said so; one owned by
    /// someone else is refused), and the shared secret.
    static func prepareFiles(_ paths: StatePaths, logger: Logger) throws {
        let cannot = "cannot prepare the state directory \(paths.stateDirectory.path)"
        do {
            try paths.prepare()
        } catch {
            throw ServeError(.state, .stateDirectory, "\(cannot): \(error)")
        }
        do {
            for file in [paths.tokenFile, paths.databaseFile] + TLSStore(directory: paths.tlsDirectory).keyFiles {
                if let tightened = try SecretFile.secure(file) { logger.warning("\(tightened)") }
            }
        } catch {
            throw ServeError(.state, .stateDirectory, "\(error)")
        }
        do {
            _ = try SharedSecret(paths: paths).loadOrCreate()
        } catch {
            throw ServeError(.state, .stateDirectory, "\(cannot): \(error)")
        }
    }
}
