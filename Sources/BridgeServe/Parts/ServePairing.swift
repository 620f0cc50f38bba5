import BridgeOps
import BridgeProtocol
import BridgeServer
import BridgeStore
import Foundation
import Logging
import Pairing

/// The pairing parts of `serve`: the server identity, the device database and its authenticator, the
/// revocation watcher, `--listen tailscale`, `server.json` and the startup QR.
package struct ServePairing: Sendable {
    /// The line logged instead of the QR.
    package static let pairHint = "To pair a phone, run `codex-bridge pair` in a terminal"

    /// Who this server is (`helloAck.server`, the pairing URL).
    package let identity: ServerIdentity
    /// Devices and pairing codes.
    package let registry: DeviceRegistry
    /// Checks device tokens and redeems pairing codes for the ``CredentialCheck``.
    package let devices: RegistryDeviceAuthenticator
    /// The server's connections, shared with the ``RevocationWatcher``.
    package let connections = ConnectionRegistry()
    /// What `--listen` asked for (`0.0.0.0`, an address, `tailscale`).
    package let listen: String
    /// A host name to offer first (the MagicDNS name whose certificate `--tls-tailscale` serves: the name a
    /// browser's certificate check needs).
    package var preferredHost: String?
    /// With `serve --shared`: the shared codex app-server's socket, recorded for `status`.
    package var sharedSocket: String?
    /// Whether the TLS fingerprint is the workstation's own CA (`serve --tls`): the QR then leads to the
    /// plain-HTTP trust page on the same port.
    package var workstationCA = false
    /// The host to bind: `listen` itself, or the first Tailscale address (IPv4 first) for `tailscale`.
    package let host: String
    package let paths: StatePaths
    package let logger: Logger

    /// Opens the database and resolves the identity and the bind address.
    /// - Throws: ``ServeError`` `listen` with the cause (e.g. `--listen tailscale` with no Tailscale interface).
    /// `confirmation`: with `--confirm-pairing`, how long a pairing waits for `codex-bridge devices allow`.
    /// `announce`: how a waiting pairing is shown (``announce(_:)``, or serve's own y/N question).
    package static func prepare(
        paths: StatePaths, listen: String, name: String?, confirmation: Duration? = nil,
        announce: @escaping @Sendable (PairingRequestRecord) -> Void = Self.announce, logger: Logger
    ) async throws -> ServePairing {
        do {
            let identity = try ServerIdentity.loadOrCreate(paths: paths, name: name)
            let host = try listenHosts(listen: listen, logger: logger)[0]
            let registry = try openRegistry(paths: paths, logger: logger)
            // No phone waits on a server that is just starting: requests left by an earlier run are void.
            try await registry.dropAllPairingRequests()
            let confirm = confirmation.map { RegistryDeviceAuthenticator.Confirmation(timeout: $0, announce: announce) }
            return ServePairing(
                identity: identity, registry: registry,
                devices: RegistryDeviceAuthenticator(registry: registry, logger: logger, confirmation: confirm),
                listen: listen, host: host, paths: paths, logger: logger)
        } catch {
            throw ServeError(.state, .listen, "\(error)")
        }
    }

    /// Closes the connections of devices revoked by another process, and shared-secret sessions after
    /// `token rotate`, as soon as the state-directory watch sees the write.
    package var revocationWatcher: RevocationWatcher {
        RevocationWatcher(
            registry: connections, devices: devices, changes: registry.database.changes, logger: logger, sharedSecretFile: paths.tokenFile)
    }

    /// Once the socket is bound: records `server.json` and returns what the startup QR shows (``StartupQR``).
    /// `fingerprint`: the TLS certificate's, when serving TLS (recorded and put in the pairing URL as `fp`).
    package func listening(_ listening: BridgeServer.Listening, fingerprint: String? = nil) async -> StartupQR.Invitation {
        var addresses = await Self.offeredAddresses(hosts: [host], logger: logger)
        if let preferredHost {
            addresses.removeAll { $0.host == preferredHost }
            addresses.insert(CandidateAddress(host: preferredHost, kind: .magicDNS, isTailscale: true), at: 0)
        }
        Self.writeServerRecord(
            paths: paths, listen: listen, port: listening.port, addresses: addresses, fingerprint: fingerprint,
            workstationCA: fingerprint != nil && workstationCA, sharedSocket: sharedSocket, logger: logger)
        return StartupQR.Invitation(
            registry: registry, identity: identity, port: listening.port, addresses: addresses, fingerprint: fingerprint,
            trustFirst: workstationCA)
    }

    /// Shows a pairing that waits for confirmation on serve's terminal (the log has it too).
    @Sendable package static func announce(_ request: PairingRequestRecord) {
        guard isatty(STDOUT_FILENO) == 1 else { return }
        let from = [request.platform, request.address.map { "from \($0)" }].compactMap { $0 }.map { ControlCharacters.escaped($0) }.joined(
            separator: ", ")
        let text = """

            A phone asks to pair: \(ControlCharacters.escaped(request.name))\(from.isEmpty ? "" : " (\(from))"), scopes \(request.scopes).
            Check code \(request.checkCode): if the phone shows the same, run
                codex-bridge devices allow \(request.deviceId) --check CODE-THE-PHONE-SHOWS
            (or `codex-bridge devices deny \(request.deviceId)`). It waits until \(request.expiresAt.formatted(date: .omitted, time: .standard)).

            """
        Terminal.write(text)
    }

    /// Opens the database in the state directory (0700, file 0600) and the device registry over it.
    package static func openRegistry(paths: StatePaths, logger: Logger) throws -> DeviceRegistry {
        DeviceRegistry(database: try BridgeDatabase(paths: paths, logger: logger), logger: logger)
    }

    /// Whether a listen host names every interface, in which case every discovered address is offered.
    package static func isWildcard(_ host: String) -> Bool {
        ["", "0.0.0.0", "::", "[::]", "*"].contains(host)
    }

    /// The hosts to bind for `--listen HOST`: the Tailscale addresses (IPv4 first) for `tailscale`, else `HOST`.
    /// - Throws: ``AddressDiscoveryError/noTailscaleInterface`` when `tailscale` is asked for and there is none.
    package static func listenHosts(listen: String, logger: Logger) throws -> [String] {
        guard listen.lowercased() == "tailscale" else { return [listen] }
        return try AddressDiscovery(logger: logger).tailscaleBindAddresses()
    }

    /// The addresses a server listening on `hosts` offers: every discovered one when it listens on all
    /// interfaces, else the hosts it bound.
    package static func offeredAddresses(hosts: [String], logger: Logger) async -> [CandidateAddress] {
        do {
            if hosts.contains(where: isWildcard) {
                return try await AddressDiscovery(logger: logger).candidates()
            }
            return try await AddressDiscovery(logger: logger).candidates(advertise: hosts)
        } catch {
            logger.warning("Cannot list the addresses to offer", metadata: ["error": "\(error)"])
            return []
        }
    }

    /// Records the running server in `server.json` (pid, port, host, addresses) for `pair` and the tests.
    package static func writeServerRecord(
        paths: StatePaths, listen: String, port: Int, addresses: [CandidateAddress], fingerprint: String? = nil,
        workstationCA: Bool = false, sharedSocket: String? = nil, logger: Logger
    ) {
        do {
            try ServerRecord(
                port: port, host: listen, addresses: addresses.map(\.host), tls: fingerprint != nil, fingerprint: fingerprint,
                workstationCA: fingerprint == nil ? nil : workstationCA, sharedSocket: sharedSocket
            )
            .write(paths: paths)
        } catch {
            logger.warning("Cannot write the server file", metadata: ["bridge.path": "\(paths.serverFile.path)", "error": "\(error)"])
        }
    }
}
