import BridgeStore
import BridgeTLS
import Foundation
import Logging
import Pairing
import ServiceLifecycle

/// Keeps the served leaf in step with the workstation (a `Service` of `serve --tls`): every `interval` it looks
/// at the interface addresses and issues a new leaf from the workstation's CA when the names it should carry
/// changed (a DHCP change inside the LAN's subnet, an interface that came up) or it nears its end. The server
/// picks the new files up for its next connection; phones need nothing new.
///
/// It only writes while `STATE/tls/ca.pem` is still the CA this server started with: after `tls ca rotate`
/// the leaf there belongs to the new CA, and this server keeps what it serves until it restarts.
package struct ServeTLSRenewal: Service {
    package let paths: StatePaths
    package let authority: CertificateAuthority
    package let listenHosts: [String]
    /// The MagicDNS name found at startup (asking `tailscale` every few seconds would cost a process each time).
    package let magicDNSName: String?
    package let interval: Duration
    package let logger: Logger

    /// The interval: `CODEX_BRIDGE_TLS_RENEW_SECONDS` (tests shorten it), else 15 s.
    package static func interval(environment: [String: String] = ProcessInfo.processInfo.environment) -> Duration {
        guard let text = environment["CODEX_BRIDGE_TLS_RENEW_SECONDS"], let seconds = Double(text), seconds >= 0.1 else {
            return .seconds(15)
        }
        return .milliseconds(Int64(seconds * 1000))
    }

    package func run() async throws {
        let store = TLSStore(directory: paths.tlsDirectory)
        var warnedRotated = false
        var lastUncovered: [String] = []
        while !Task.isShuttingDownGracefully {
            // The sleep ends at once on graceful shutdown (a plain sleep would hold serve's exit for an interval).
            _ = try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            guard !Task.isShuttingDownGracefully, !Task.isCancelled else { return }
            guard (try? store.loadAuthority())?.fingerprint == authority.fingerprint else {
                if !warnedRotated {
                    logger.warning("The certificate authority in \(store.directory.path) changed; restart serve to use it")
                    warnedRotated = true
                }
                continue
            }
            let candidates = AddressDiscovery.select((try? InterfaceAddress.system()) ?? [], magicDNSName: magicDNSName).map(\.host)
            let names = ServeTLS.certificateNames(listenHosts: listenHosts, candidates: candidates)
            do {
                let (leaf, issued) = try store.ensureLeaf(authority: authority, names: names)
                if issued {
                    logger.notice(
                        "TLS certificate re-issued for the current addresses",
                        metadata: ["bridge.tls.names": "\(leaf.subjectAlternativeNames)"])
                }
            } catch {
                logger.warning("Cannot re-issue the TLS certificate", metadata: ["error": "\(error)"])
            }
            let uncovered = ServeTLS.uncovered(names: candidates, authority: authority)
            if uncovered != lastUncovered, !uncovered.isEmpty {
                logger.warning(
                    "Some addresses are outside this workstation's certificate authority: browsers warn there. Run `codex-bridge tls ca rotate` and trust the new one on the phones",
                    metadata: ["bridge.tls.uncovered": "\(uncovered)"])
            }
            lastUncovered = uncovered
        }
    }
}
