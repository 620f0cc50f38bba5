import BridgeOps
import BridgeServer
import BridgeStore
import BridgeTLS
import Foundation
import Logging
import Pairing

/// The TLS parts of `serve`, `tls` and `doctor`: the workstation's certificate authority and the leaf it
/// issues (names, loading or making them, the server context), and the warning about plaintext on a network
/// other than loopback or Tailscale.
package enum ServeTLS {
    /// Names the leaf should carry: loopback, the host name (and `HOST.local`), every address a phone is
    /// offered (LAN, Tailscale, the MagicDNS name), and the listen host when it is a specific one. The CA keeps
    /// only those inside its constraints.
    package static func certificateNames(listenHosts: [String], candidates: [String]) -> [String] {
        let host = ServerIdentity.hostName().lowercased()
        var names = ["localhost", "127.0.0.1", "::1", host]
        if let label = host.split(separator: ".").first { names.append("\(label).local") }
        names += listenHosts.filter { !ServePairing.isWildcard($0) && $0.lowercased() != "tailscale" }
        return names + candidates
    }

    /// ``certificateNames(listenHosts:candidates:)`` with the addresses discovered now.
    package static func certificateNames(listenHosts: [String], logger: Logger) async -> [String] {
        let candidates = (try? await AddressDiscovery(logger: logger).candidates())?.map(\.host) ?? []
        return certificateNames(listenHosts: listenHosts, candidates: candidates)
    }

    /// The scope of a new CA for these names (``NameScope/forWorkstation(hostName:names:)``).
    package static func scope(names: [String]) -> NameScope {
        NameScope.forWorkstation(hostName: ServerIdentity.hostName(), names: names)
    }

    /// The stored CA (made, and logged with its fingerprint, when there is none) and a leaf for the current
    /// names (re-issued when they changed).
    package static func prepare(paths: StatePaths, listenHosts: [String], logger: Logger) async throws -> (
        CertificateAuthority, TLSIdentity
    ) {
        let store = TLSStore(directory: paths.tlsDirectory)
        let names = await certificateNames(listenHosts: listenHosts, logger: logger)
        let hadSelfSigned = FileManager.default.fileExists(atPath: store.certificateFile.path)
        let (authority, created) = try store.loadOrCreateAuthority(scope: scope(names: names), name: ServerIdentity.hostName())
        if created {
            logger.notice(
                "Made this workstation's certificate authority (phones trust it once; see `codex-bridge tls ca`)",
                metadata: ["bridge.tls.fingerprint": "\(authority.fingerprint)", "bridge.tls.scope": "\(authority.scope)"])
            if hadSelfSigned {
                logger.warning("The earlier self-signed certificate is replaced: native apps that pinned it pair again")
            }
        }
        let (leaf, issued) = try store.ensureLeaf(authority: authority, names: names)
        if issued {
            logger.info("TLS certificate issued", metadata: ["bridge.tls.names": "\(leaf.subjectAlternativeNames)"])
        }
        let outside = uncovered(names: names, authority: authority)
        if !outside.isEmpty {
            logger.warning(
                "Some addresses are outside this workstation's certificate authority: browsers warn there. Run `codex-bridge tls ca rotate` and trust the new one on the phones, or reserve the address in the router",
                metadata: ["bridge.tls.uncovered": "\(outside)"])
        }
        if authority.notValidAfter.timeIntervalSinceNow < 90 * 86400 {
            logger.warning(
                "The certificate authority expires soon or has expired; run `codex-bridge tls ca rotate` and trust the new one on the phones",
                metadata: ["bridge.tls.notAfter": "\(authority.notValidAfter)"])
        }
        if !authority.missingLimits.isEmpty {
            logger.warning(
                "The certificate authority was made before it was limited to TLS servers (its key could sign e-mail or client certificates); run `codex-bridge tls ca rotate` and trust the new one on the phones",
                metadata: ["bridge.tls.missing": "\(authority.missingLimits)"])
        }
        return (authority, leaf)
    }

    /// The offered names the CA cannot sign for (loopback and host-name forms excluded: they are always in).
    package static func uncovered(names: [String], authority: CertificateAuthority) -> [String] {
        names.filter { !authority.scope.permits($0) && (IPAddressClass.of($0) != nil || $0.lowercased().hasSuffix(".ts.net")) }
    }

    /// Each new connection's context: the leaf in `STATE/tls` followed by the CA, read again when the leaf's
    /// files change (`tls rotate`, a re-issue for new addresses). A leaf that `authority` did not issue (the CA
    /// was rotated under a running server) is not served: the previous one stays until `serve` restarts.
    package static func contextSource(paths: StatePaths, authority: CertificateAuthority, logger: Logger) throws -> TLSContextSource {
        let store = TLSStore(directory: paths.tlsDirectory)
        return try TLSContextSource(
            load: {
                guard let leaf = store.loadLeaf() else {
                    throw TLSIdentityError.invalid("\(store.certificateFile.path) is missing or unreadable")
                }
                guard authority.issued(leaf.certificate) else {
                    throw TLSIdentityError.invalid("the certificate authority changed (tls ca rotate); restart serve to use the new one")
                }
                // For clients that send a server name: the same names without the addresses (see makeServerContext).
                let named = try authority.issueLeaf(names: leaf.subjectAlternativeNames.filter { IPAddressClass.of($0) == nil })
                return try leaf.makeServerContext(chain: [authority.certificateDER], named: named)
            },
            changeToken: { store.leafChangeToken() }, logger: logger)
    }

    /// The warning for plaintext on `host`, or nil when `host` is loopback or a Tailscale address (traffic
    /// there is not readable by the LAN).
    package static func plaintextWarning(host: String) -> String? {
        guard !isLoopbackOrTailscale(host) else { return nil }
        let shown = ServePairing.isWildcard(host) ? "every interface (\(host.isEmpty ? "0.0.0.0" : host))" : host
        return "serving plaintext ws:// on \(shown): tokens and traffic can be read on the network; "
            + "restart with --tls (or tls = true in config.toml), or listen on loopback or Tailscale only"
    }

    /// Whether `host` is a loopback address (127.0.0.0/8, ::1, localhost) or a Tailscale address
    /// (100.64.0.0/10, fd7a:115c:a1e0::/48, a `.ts.net` name).
    package static func isLoopbackOrTailscale(_ host: String) -> Bool {
        let text = host.lowercased()
        if text == "localhost" || text.hasSuffix(".ts.net") { return true }
        guard let (kind, isTailscale) = IPAddressClass.of(text) else { return false }
        return kind == .loopback || isTailscale
    }
}
