import BridgeStore
import Foundation

/// The workstation's TLS files in `STATE/tls` (0700): its certificate authority (`ca.pem`, `ca-key.pem` 0600)
/// and the leaf `serve --tls` serves, issued by it (`cert.pem`, `key.pem` 0600). The CA is made on first use
/// and kept until ``rotateAuthority(scope:name:)``; the leaf is re-issued whenever the names it should carry
/// change or it nears its end (``ensureLeaf(names:now:)``), which needs nothing new on the phones.
public struct TLSStore: Sendable {
    /// `STATE/tls`.
    public let directory: URL
    /// A leaf is re-issued when fewer than this many seconds of validity remain.
    public static let renewalMargin: TimeInterval = 30 * 86400

    /// - Parameter directory: where the files live (`STATE/tls`, ``StatePaths/tlsDirectory``).
    public init(directory: URL) {
        self.directory = directory
    }

    /// The CA certificate (PEM).
    public var authorityCertificateFile: URL { directory.appendingPathComponent("ca.pem") }
    /// The CA's private key (PEM, 0600).
    public var authorityKeyFile: URL { directory.appendingPathComponent("ca-key.pem") }
    /// The leaf certificate (PEM).
    public var certificateFile: URL { directory.appendingPathComponent("cert.pem") }
    /// The leaf's private key (PEM, 0600).
    public var keyFile: URL { directory.appendingPathComponent("key.pem") }
    /// Every private key here.
    public var keyFiles: [URL] { [authorityKeyFile, keyFile] }

    /// The stored CA; nil when there is none yet.
    /// - Throws: ``TLSIdentityError`` when the files exist but are unusable (one missing, a key that does not
    ///   match), so a broken CA is never silently replaced: `tls ca rotate` replaces it.
    public func loadAuthority() throws -> CertificateAuthority? {
        let certificate = try SecretFile.read(authorityCertificateFile)
        let key = try SecretFile.read(authorityKeyFile)
        switch (certificate, key) {
        case (nil, nil):
            return nil
        case (let certificate?, let key?):
            do {
                return try CertificateAuthority(certificatePEM: certificate + "\n", privateKeyPEM: key + "\n")
            } catch {
                throw TLSIdentityError.invalid("\(directory.path): \(error.message); `codex-bridge tls ca rotate` makes a new one")
            }
        default:
            throw TLSIdentityError.invalid(
                "\(directory.path) holds only one of ca.pem and ca-key.pem; `codex-bridge tls ca rotate` makes a new certificate authority")
        }
    }

    /// The stored CA, or a new one for `scope` (stored) when there is none.
    /// - Returns: the CA and whether it was just made.
    public func loadOrCreateAuthority(scope: @autoclosure () -> NameScope, name: String) throws -> (CertificateAuthority, created: Bool) {
        if let authority = try loadAuthority() { return (authority, false) }
        return (try rotateAuthority(scope: scope(), name: name), true)
    }

    /// Makes a new CA for `scope`, replacing the stored one and its leaf. Phones must trust the new one, and
    /// native clients that pinned the old one pair again.
    @discardableResult
    public func rotateAuthority(scope: NameScope, name: String) throws -> CertificateAuthority {
        let authority = try CertificateAuthority.make(scope: scope, name: name)
        try prepareDirectory()
        // The old leaf belongs to the old CA: remove it first, so no reader pairs it with the new one.
        for file in [certificateFile, keyFile] where FileManager.default.fileExists(atPath: file.path) {
            try FileManager.default.removeItem(at: file)
        }
        try SecretFile.write(authority.privateKeyPEM, to: authorityKeyFile)
        try SecretFile.write(authority.certificatePEM, to: authorityCertificateFile)
        return authority
    }

    /// The stored leaf; nil when there is none (or only half of one: it is simply issued again).
    public func loadLeaf() -> TLSIdentity? {
        guard let certificate = try? SecretFile.read(certificateFile), let key = try? SecretFile.read(keyFile) else { return nil }
        return try? TLSIdentity(certificatePEM: certificate + "\n", privateKeyPEM: key + "\n")
    }

    /// The stored leaf when it is `authority`'s, names exactly the permitted ones of `names` and is valid for
    /// at least ``renewalMargin`` more; otherwise a new one, stored.
    /// - Returns: the leaf and whether it was just issued.
    @discardableResult
    public func ensureLeaf(authority: CertificateAuthority, names: [String], now: Date = Date()) throws -> (TLSIdentity, issued: Bool) {
        let wanted = Set(authority.permittedNames(names).map(TLSIdentity.canonicalName))
        if let leaf = loadLeaf(), authority.issued(leaf.certificate),
            Set(leaf.subjectAlternativeNames.map(TLSIdentity.canonicalName)) == wanted,
            leaf.notValidAfter.timeIntervalSince(now) > Self.renewalMargin, leaf.notValidBefore <= now
        {
            return (leaf, false)
        }
        let leaf = try authority.issueLeaf(names: names, now: now)
        try replaceLeaf(leaf)
        return (leaf, true)
    }

    /// Stores `leaf` as the served certificate.
    public func replaceLeaf(_ leaf: TLSIdentity) throws {
        try prepareDirectory()
        // The key first: a reader that sees the new certificate finds its key already in place. Each file is
        // replaced whole (renamed into place), so a reader never sees half of one.
        try SecretFile.write(leaf.privateKeyPEM, to: keyFile)
        try SecretFile.write(leaf.certificatePEM, to: certificateFile)
    }

    /// Changes whenever the leaf's files are replaced or rewritten (inode, size, modification time).
    public func leafChangeToken() -> String? {
        CertificateFiles(certificate: certificateFile, key: keyFile).changeToken()
    }

    private func prepareDirectory() throws {
        let fm = FileManager.default
        try fm.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
    }
}
