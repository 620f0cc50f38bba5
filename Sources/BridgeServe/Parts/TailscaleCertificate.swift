import BridgeStore
import BridgeTLS
import Foundation
import Logging
import Pairing
import ServiceLifecycle

/// `serve --tls-tailscale`: this machine's certificate for its MagicDNS name from `tailscale cert` (Let's
/// Encrypt, trusted by every phone's browser), kept in `STATE/tls/tailscale/` (directory 0700, key 0600) and
/// renewed daily by running `tailscale cert` again (it renews when due). The server's ``TLSContextSource``
/// picks up the new files; open connections are not dropped.
package struct TailscaleCertificate: Service {
    /// The MagicDNS name (`box.tail1234.ts.net`): the host the QR offers first.
    package let domain: String
    package let files: CertificateFiles
    package let cli: TailscaleCLI
    package let logger: Logger
    /// How often `tailscale cert` runs again.
    package var renewInterval: Duration = .seconds(86_400)

    /// Finds the MagicDNS name and fetches the certificate.
    /// - Throws: ``ServeError`` `tls` saying what to enable when Tailscale or its certificates are unavailable.
    package static func obtain(paths: StatePaths, logger: Logger) async throws -> TailscaleCertificate {
        let cli = TailscaleCLI(timeout: .seconds(5), logger: logger)
        guard let domain = await cli.magicDNSName() else {
            throw ServeError(
                .tls, .tls,
                "--tls-tailscale: Tailscale is not running or has no MagicDNS name; run `tailscale up` and enable MagicDNS in the tailnet's DNS settings"
            )
        }
        let directory = paths.stateDirectory.appendingPathComponent("tls/tailscale", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        let files = CertificateFiles(
            certificate: directory.appendingPathComponent("\(domain).crt"), key: directory.appendingPathComponent("\(domain).key"))
        let certificate = TailscaleCertificate(domain: domain, files: files, cli: cli, logger: logger)
        if let problem = await certificate.fetch() {
            throw ServeError(.tls, .tls, "--tls-tailscale: \(problem)")
        }
        logger.notice("Serving the Tailscale certificate", metadata: ["bridge.tls.domain": "\(domain)"])
        return certificate
    }

    /// Runs `tailscale cert`; nil on success, else the problem.
    package func fetch() async -> String? {
        let problem = await cli.fetchCertificate(domain: domain, certFile: files.certificate.path, keyFile: files.key.path)
        if problem == nil { try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: files.key.path) }
        return problem
    }

    package var description: String { "TailscaleCertificate" }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await Task.sleep(for: renewInterval) } catch { return }
                if let problem = await fetch() {
                    logger.warning("Cannot renew the Tailscale certificate; the current one stays", metadata: ["error": "\(problem)"])
                }
            }
        }
    }
}
