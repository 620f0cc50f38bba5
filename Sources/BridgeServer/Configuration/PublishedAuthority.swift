/// What the server publishes of the workstation's certificate authority: nothing secret, only what a phone
/// needs to trust it and a person needs to check it.
public struct PublishedAuthority: Sendable, Hashable {
    /// The CA certificate, DER (`GET /ca.crt`).
    public var certificateDER: [UInt8]
    /// Its SHA-256, 64 lowercase hex digits (what the trust page shows and `serve` prints).
    public var fingerprint: String
    /// Its common name (what a phone's certificate settings list).
    public var commonName: String
    /// The iOS configuration profile that installs it (`GET /ca.mobileconfig`).
    public var profile: [UInt8]

    public init(certificateDER: [UInt8], fingerprint: String, commonName: String, profile: [UInt8]) {
        self.certificateDER = certificateDER
        self.fingerprint = fingerprint
        self.commonName = commonName
        self.profile = profile
    }
}
