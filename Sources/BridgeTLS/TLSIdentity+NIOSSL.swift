import NIOCore
import NIOSSL

extension TLSIdentity {
    /// A server context serving this certificate, followed by `chain` (DER: the issuing CA, so a client that
    /// pins the CA finds it in the handshake); TLS 1.2 and 1.3, no client certificates.
    ///
    /// `named`: a certificate from the same CA naming only DNS names, served instead to a client whose hello
    /// carries a server name (SNI). Browsers send none when they connect to an IP address and get this one,
    /// which names the addresses; BoringSSL-based clients (swift-nio-ssl: BridgeClient, `attach`) cannot check
    /// IP-address name constraints and refuse any chain where one applies, so a pinning client that connects by
    /// address sends a placeholder server name and gets `named`, whose names its verifier can check.
    public func makeServerContext(chain: [[UInt8]] = [], named: TLSIdentity? = nil) throws -> NIOSSLContext {
        let rest = try chain.map { NIOSSLCertificateSource.certificate(try NIOSSLCertificate(bytes: $0, format: .der)) }
        let (certificate, key) = try sources()
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: [certificate] + rest, privateKey: key)
        configuration.minimumTLSVersion = .tlsv12
        if let named {
            var override = NIOSSLContextConfigurationOverride()
            let (namedCertificate, namedKey) = try named.sources()
            override.certificateChain = [namedCertificate] + rest
            override.privateKey = namedKey
            configuration.sslContextCallback = { [override] values, promise in
                promise.succeed(values.serverHostname == nil ? .noChanges : override)
            }
        }
        return try NIOSSLContext(configuration: configuration)
    }

    private func sources() throws -> (NIOSSLCertificateSource, NIOSSLPrivateKeySource) {
        let certificate = try NIOSSLCertificate(bytes: certificateDER, format: .der)
        let key = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
        return (.certificate(certificate), .privateKey(key))
    }
}
