import NIOSSL

extension TLSIdentity {
    /// A server context serving this certificate (TLS 1.2 and 1.3; no client certificates).
    public func makeServerContext() throws -> NIOSSLContext {
        let certificate = try NIOSSLCertificate(bytes: certificateDER, format: .der)
        let key = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        return try NIOSSLContext(configuration: configuration)
    }
}
