import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// Fetches the certificate a pin names from a server's TLS chain: the leaf, or the CA that issued it.
///
/// `WebSocketClient` takes a `TLSConfiguration`, which cannot carry a verification callback, so the pin is
/// checked on a short TLS connection of its own; the certificate it returns becomes the only trust root of the
/// WebSocket connection. Certificates that matched are remembered per fingerprint, so reconnects skip the
/// extra connection.
final class PinnedCertificateFetcher: Sendable {
    private let cache = Mutex<[String: NIOSSLCertificate]>([:])
    private let timeout: TimeAmount

    init(timeout: TimeAmount = .seconds(10)) {
        self.timeout = timeout
    }

    /// The pinned certificate (the leaf or its issuing CA) as `endpoint` presents it.
    /// - Throws: ``BridgeClientError`` `pinMismatch` when the server presents another certificate,
    ///   `connectionFailed` when it cannot be reached or does not speak TLS.
    func certificate(for endpoint: BridgeEndpoint, pin: CertificatePin) async throws -> NIOSSLCertificate {
        if let known = cache.withLock({ $0[pin.fingerprint] }) { return known }
        var configuration = TLSConfiguration.makeClientConfiguration()
        // Not `.none`: NIOSSL only calls the custom callback when verification is on; the callback replaces it.
        configuration.certificateVerification = .noHostnameVerification
        let context = try NIOSSLContext(configuration: configuration)
        let group = MultiThreadedEventLoopGroup.singleton
        let result = group.next().makePromise(of: NIOSSLCertificate.self)
        let serverName = endpoint.hostIsIPAddress ? nil : endpoint.host
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = try NIOSSLClientHandler(context: context, serverHostname: serverName) { certificates, verdict in
                        guard let leaf = certificates.first, let leafDER = try? leaf.toDERBytes() else {
                            result.fail(BridgeClientError.connectionFailed("\(endpoint): the server sent no certificate"))
                            verdict.succeed(.failed)
                            return
                        }
                        // The pin names the leaf itself, or the CA that issued it (the workstation's CA, sent after
                        // the leaf). Nothing is sent on this connection; the WebSocket's own handshake then checks
                        // the whole chain against the certificate returned here as its only trust root.
                        if let pinned = certificates.first(where: { (try? $0.toDERBytes()).map(pin.matches(certificateDER:)) ?? false }) {
                            result.succeed(pinned)
                            verdict.succeed(.certificateVerified)
                        } else {
                            result.fail(
                                BridgeClientError.pinMismatch(expected: pin.fingerprint, actual: CertificatePin.fingerprint(ofDER: leafDER))
                            )
                            verdict.succeed(.failed)
                        }
                    }
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: endpoint.host, port: endpoint.port).get()
        } catch {
            result.fail(error)
            throw BridgeClientError.connectionFailed("\(endpoint): \(error)")
        }
        channel.closeFuture.whenComplete { _ in
            result.fail(
                BridgeClientError.connectionFailed("\(endpoint): the TLS handshake failed (is the bridge serving TLS on this port?)"))
        }
        let deadline = channel.eventLoop.scheduleTask(in: timeout) {
            result.fail(BridgeClientError.timeout("the TLS handshake with \(endpoint)"))
        }
        defer {
            deadline.cancel()
            channel.close(promise: nil)
        }
        let certificate = try await result.futureResult.get()
        cache.withLock { $0[pin.fingerprint] = certificate }
        return certificate
    }
}
