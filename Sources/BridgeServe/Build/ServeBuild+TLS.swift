import BridgeServer
import BridgeStore
import BridgeTLS
import Foundation
import Logging

extension ServeBuild {
    /// What the TLS step chose: the workstation's CA (`--tls`), a provided or Tailscale certificate, or none.
    struct TLS: Sendable {
        var authority: CertificateAuthority?
        var userCertificate: CertificateFiles?
        /// `--tls-tailscale`: renewed daily as a service.
        var tailscale: TailscaleCertificate?
        /// Each connection's context (nil: plaintext).
        var source: TLSContextSource?
        /// The SHA-256 phones compare (the CA's, or the provided certificate's).
        var fingerprint: String?
    }

    /// Chooses the certificate (making the CA and its leaf when `--tls` asks for them) and loads the context
    /// every connection uses; plaintext beyond loopback and Tailscale is warned about.
    static func prepareTLS(_ settings: ServeSettings, state: inout State, logger: Logger) async throws -> TLS {
        var tls = TLS()
        if settings.tlsTailscale {
            let tailscale = try await TailscaleCertificate.obtain(paths: state.paths, logger: logger)
            state.pairing.preferredHost = tailscale.domain
            tls.userCertificate = tailscale.files
            tls.tailscale = tailscale
        } else if let cert = settings.tlsCert, let key = settings.tlsKey {
            tls.userCertificate = CertificateFiles(certificate: URL(fileURLWithPath: cert), key: URL(fileURLWithPath: key))
        } else if settings.tls {
            do {
                tls.authority = try await ServeTLS.prepare(paths: state.paths, listenHosts: [state.pairing.host], logger: logger).0
                state.pairing.workstationCA = true
            } catch {
                throw ServeError(.tls, .tls, "cannot set up TLS: \(error)")
            }
        } else if let warning = ServeTLS.plaintextWarning(host: state.pairing.host) {
            logger.warning("\(warning)")
        }
        do {
            try loadContext(&tls, paths: state.paths, logger: logger)
        } catch {
            throw ServeError(.tls, .tls, "cannot set up TLS: \(error)")
        }
        return tls
    }

    /// The context source and fingerprint of the chosen certificate.
    private static func loadContext(_ tls: inout TLS, paths: StatePaths, logger: Logger) throws {
        tls.fingerprint = tls.authority?.fingerprint
        if let files = tls.userCertificate {
            tls.source = try TLSContextSource(load: { try files.makeServerContext() }, changeToken: { files.changeToken() }, logger: logger)
            tls.fingerprint = try files.fingerprint()
            logger.info(
                "Serving the provided TLS certificate",
                metadata: ["bridge.tls.cert": "\(files.certificate.path)", "bridge.tls.fingerprint": "\(tls.fingerprint ?? "")"])
        } else if let authority = tls.authority {
            tls.source = try ServeTLS.contextSource(paths: paths, authority: authority, logger: logger)
            logger.notice(
                "Serving TLS with this workstation's certificate authority; phones compare this SHA-256 when they trust it",
                metadata: ["bridge.tls.fingerprint": "\(authority.fingerprint)"])
        }
    }
}
