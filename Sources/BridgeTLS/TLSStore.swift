import BridgeStore
import Foundation

/// The bridge's TLS identity on disk: `cert.pem` and `key.pem` in its directory (`STATE/tls`, 0700; the key
/// 0600), made on first use and kept until ``rotate(names:)``.
public struct TLSStore: Sendable {
    /// `STATE/tls`.
    public let directory: URL
    private let factory: TLSCertificateFactory

    /// - Parameter directory: where the files live (`STATE/tls`, ``StatePaths/tlsDirectory``).
    public init(directory: URL, factory: TLSCertificateFactory = TLSCertificateFactory()) {
        self.directory = directory
        self.factory = factory
    }

    /// The certificate (PEM).
    public var certificateFile: URL { directory.appendingPathComponent("cert.pem") }
    /// The private key (PEM, 0600).
    public var keyFile: URL { directory.appendingPathComponent("key.pem") }

    /// The stored identity; nil when there is none yet.
    /// - Throws: ``TLSIdentityError`` when the files exist but are unusable (e.g. one is missing or the key
    ///   does not match), so a broken identity is never silently replaced: `tls rotate` replaces it.
    public func load() throws -> TLSIdentity? {
        let certificate = try SecretFile.read(certificateFile)
        let key = try SecretFile.read(keyFile)
        switch (certificate, key) {
        case (nil, nil):
            return nil
        case (let certificate?, let key?):
            do {
                return try TLSIdentity(certificatePEM: certificate + "\n", privateKeyPEM: key + "\n")
            } catch {
                throw TLSIdentityError.invalid("\(directory.path): \(error.message); `codex-bridge tls rotate` makes a new certificate")
            }
        default:
            throw TLSIdentityError.invalid(
                "\(directory.path) holds only one of cert.pem and key.pem; `codex-bridge tls rotate` makes a new certificate")
        }
    }

    /// The stored identity, or a new one for `names` (stored) when there is none.
    /// - Returns: the identity and whether it was just made.
    public func loadOrCreate(names: [String]) throws -> (identity: TLSIdentity, created: Bool) {
        if let identity = try load() { return (identity, false) }
        return (try rotate(names: names), true)
    }

    /// Makes a new identity for `names`, replacing any stored one. Clients that pinned the old fingerprint
    /// must pair again.
    @discardableResult
    public func rotate(names: [String]) throws -> TLSIdentity {
        let identity = try factory.make(names: names)
        try prepareDirectory()
        // The key first: a reader that sees the new certificate finds its key already in place.
        try SecretFile.write(identity.privateKeyPEM, to: keyFile)
        try SecretFile.write(identity.certificatePEM, to: certificateFile)
        return identity
    }

    private func prepareDirectory() throws {
        let fm = FileManager.default
        try fm.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
    }
}
