import Foundation
import NIOSSL

/// A certificate the user provides (`serve --tls-cert FILE --tls-key FILE`): issued by a CA the phones trust
/// (an internal CA, a reverse proxy's, `tailscale cert`), so a phone's browser accepts it without a warning.
/// The files are read again whenever they change (see ``changeToken()``).
public struct CertificateFiles: Sendable, Hashable {
    /// The certificate chain, PEM, leaf first.
    public let certificate: URL
    /// The private key, PEM (RSA or ECDSA). Must not be readable by group or others.
    public let key: URL

    public init(certificate: URL, key: URL) {
        self.certificate = certificate
        self.key = key
    }

    /// A TLS server context serving the files' certificate.
    /// - Throws: ``TLSIdentityError`` naming the file that cannot be used.
    public func makeServerContext() throws(TLSIdentityError) -> NIOSSLContext {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificate.path)
        } catch {
            throw .invalid("\(certificate.path) is not a PEM certificate chain: \(error)")
        }
        guard !chain.isEmpty else { throw .invalid("\(certificate.path) holds no certificate") }
        if let problem = Self.permissionProblem(key) { throw .invalid(problem) }
        let privateKey: NIOSSLPrivateKey
        do {
            privateKey = try NIOSSLPrivateKey(file: key.path, format: .pem)
        } catch {
            throw .invalid("\(key.path) is not a PEM private key: \(error)")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
        configuration.minimumTLSVersion = .tlsv12
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw .invalid(
                "\(certificate.path) and \(key.path) do not make a TLS identity (does the key belong to the certificate?): \(error)")
        }
    }

    /// The leaf certificate's SHA-256 fingerprint (``TLSFingerprint``), for pinning clients.
    public func fingerprint() throws(TLSIdentityError) -> String {
        do {
            guard let leaf = try NIOSSLCertificate.fromPEMFile(certificate.path).first else { throw TLSIdentityError.invalid("empty") }
            return TLSFingerprint.of(der: try leaf.toDERBytes())
        } catch {
            throw .invalid("\(certificate.path) is not a PEM certificate chain: \(error)")
        }
    }

    /// Changes whenever either file is replaced or rewritten (inode, size, modification time).
    public func changeToken() -> String? {
        var parts: [String] = []
        for url in [certificate, key] {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
            let inode = (attributes[.systemFileNumber] as? NSNumber)?.stringValue ?? "?"
            let size = (attributes[.size] as? NSNumber)?.stringValue ?? "?"
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            parts.append("\(inode):\(size):\(modified)")
        }
        return parts.joined(separator: "|")
    }

    /// Why the key file must not be used: readable by group or others (a key others could copy).
    static func permissionProblem(_ url: URL) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue
        else { return "\(url.path) does not exist" }
        guard mode & 0o077 == 0 else {
            return "\(url.path) is readable by others (mode \(String(mode & 0o777, radix: 8))); run: chmod 600 \(url.path)"
        }
        return nil
    }
}
