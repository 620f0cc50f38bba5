import BridgeOps
import BridgeStore
import BridgeTLS
import Foundation
import Logging
import Pairing

/// The TLS parts of `serve`, `tls` and `doctor`: the certificate's names, loading or making it, and the
/// warning about plaintext on a network other than loopback or Tailscale.
enum ServeTLS {
    /// Names for a new certificate: the host name, every address a phone is offered (LAN, Tailscale, the
    /// MagicDNS name), and the listen host when it is a specific one. Loopback names are always added.
    static func certificateNames(listenHosts: [String], logger: Logger) async -> [String] {
        var names = [ServerIdentity.hostName()]
        let specific = listenHosts.filter { !ServePairing.isWildcard($0) && $0.lowercased() != "tailscale" }
        names += specific
        if let addresses = try? await AddressDiscovery(logger: logger).candidates() {
            names += addresses.map(\.host)
        }
        return names
    }

    /// The stored identity, or a new one (logged with its fingerprint) when there is none.
    static func loadOrCreate(paths: StatePaths, listenHosts: [String], logger: Logger) async throws -> TLSIdentity {
        let store = TLSStore(directory: paths.tlsDirectory)
        let identity: TLSIdentity
        if let stored = try store.load() {
            identity = stored
            logger.info("TLS certificate loaded", metadata: ["bridge.tls.fingerprint": "\(identity.fingerprint)"])
        } else {
            identity = try store.rotate(names: await certificateNames(listenHosts: listenHosts, logger: logger))
            logger.notice(
                "TLS certificate created",
                metadata: ["bridge.tls.fingerprint": "\(identity.fingerprint)", "bridge.tls.names": "\(identity.subjectAlternativeNames)"])
        }
        let remaining = identity.notValidAfter.timeIntervalSinceNow
        if remaining < 30 * 86400 {
            logger.warning(
                "The TLS certificate expires soon or has expired; run `codex-bridge tls rotate` and pair phones again",
                metadata: ["bridge.tls.notAfter": "\(identity.notValidAfter)"])
        }
        return identity
    }

    /// The warning for plaintext on `host`, or nil when `host` is loopback or a Tailscale address (traffic
    /// there is not readable by the LAN).
    static func plaintextWarning(host: String) -> String? {
        guard !isLoopbackOrTailscale(host) else { return nil }
        let shown = ServePairing.isWildcard(host) ? "every interface (\(host.isEmpty ? "0.0.0.0" : host))" : host
        return "serving plaintext ws:// on \(shown): tokens and traffic can be read on the network; "
            + "restart with --tls (or tls = true in config.toml), or listen on loopback or Tailscale only"
    }

    /// Whether `host` is a loopback address (127.0.0.0/8, ::1, localhost) or a Tailscale address
    /// (100.64.0.0/10, fd7a:115c:a1e0::/48, a `.ts.net` name).
    static func isLoopbackOrTailscale(_ host: String) -> Bool {
        let text = host.lowercased()
        if text == "localhost" || text.hasSuffix(".ts.net") { return true }
        guard let (kind, isTailscale) = IPAddressClass.of(text) else { return false }
        return kind == .loopback || isTailscale
    }
}

extension ServeTLS {
    /// `doctor`'s `tls` check. A running server that serves plaintext on an address other than loopback or
    /// Tailscale is a problem; with none running, what `serve` would do with config.toml is reported as info.
    static func doctorFinding(paths: StatePaths, running: ServerRecord?) -> DoctorFinding {
        let file = (try? ServeConfigFile.load(paths.configFile)) ?? ServeOptions()
        let tls = running?.tls ?? ServeSettings(file).tls
        if tls {
            let store = TLSStore(directory: paths.tlsDirectory)
            do {
                guard let identity = try store.load() else {
                    return DoctorFinding(check: "tls", severity: .ok, summary: "TLS is on; serve makes the certificate on first start")
                }
                let mode = (try? FileManager.default.attributesOfItem(atPath: store.keyFile.path)[.posixPermissions] as? Int) ?? 0
                if mode & 0o077 != 0 {
                    return DoctorFinding(
                        check: "tls", severity: .problem, summary: "\(store.keyFile.path) is readable by others",
                        fix: "chmod 600 \(store.keyFile.path)   (and codex-bridge tls rotate, since it may have leaked)")
                }
                let fingerprint = running?.fingerprint ?? identity.fingerprint
                return DoctorFinding(check: "tls", severity: .ok, summary: "TLS (wss://), certificate SHA-256 \(fingerprint)")
            } catch {
                return DoctorFinding(check: "tls", severity: .problem, summary: "\(error)", fix: "codex-bridge tls rotate")
            }
        }
        let host = running?.host ?? file.listen?.host ?? "0.0.0.0"
        guard let warning = plaintextWarning(host: host) else {
            return DoctorFinding(check: "tls", severity: .ok, summary: "plaintext ws:// on \(host) (loopback or Tailscale only)")
        }
        if running != nil {
            return DoctorFinding(
                check: "tls", severity: .problem, summary: "the running server is " + warning.split(separator: ";")[0],
                fix: "restart it with: codex-bridge serve --tls   (or tls = true in \(paths.configFile.path))")
        }
        return DoctorFinding(
            check: "tls", severity: .info, summary: "serve would be " + warning.split(separator: ";")[0],
            fix: "codex-bridge serve --tls   (or tls = true in \(paths.configFile.path))")
    }
}
