import Logging
import ServiceLifecycle

/// Advertises the bridge over mDNS/DNS-SD through avahi-daemon, as a `Service` next to the server.
///
/// `run()` publishes until graceful shutdown or cancellation, then withdraws the service. It never fails
/// because avahi is missing: it logs one warning naming the fix and keeps trying in the background, so the
/// service appears as soon as the daemon does. After a daemon restart it registers again (within a second of
/// the daemon being back). On a name collision it takes the alternative name Avahi proposes and logs it.
///
/// When the server listens on port 0, advertise port 0 and report the bound port once it is known:
/// `run()` waits for it.
///
/// ```swift
/// let publisher = MDNSPublisher(
///     advertisement: MDNSAdvertisement(name: name, port: listen.port, serverID: id, tls: false),
///     logger: logger)
/// // in the server's "listening" callback:
/// publisher.serverListening(port: boundPort)
/// let group = ServiceGroup(services: [server, publisher], logger: logger)
/// ```
public final class MDNSPublisher: Service {
    private let advertisement: MDNSAdvertisement
    private let logger: Logger
    private let retryDelay: Duration
    private let boundPorts: AsyncStream<Int>
    private let boundPortsContinuation: AsyncStream<Int>.Continuation

    /// - Parameters:
    ///   - advertisement: what to publish; the instance name is `advertisement.instanceName`.
    ///   - logger: where the publisher reports (one warning when the daemon is missing, collisions, failures).
    public convenience init(advertisement: MDNSAdvertisement, logger: Logger) {
        self.init(advertisement: advertisement, logger: logger, retryDelay: .seconds(1))
    }

    init(advertisement: MDNSAdvertisement, logger: Logger, retryDelay: Duration) {
        self.advertisement = advertisement
        var logger = logger
        logger[metadataKey: "mdns.type"] = .string(advertisement.type)
        self.logger = logger
        self.retryDelay = retryDelay
        (boundPorts, boundPortsContinuation) = AsyncStream.makeStream(of: Int.self)
    }

    /// Reports the port the server actually bound; needed only when the advertisement's port is 0
    /// (`--listen …:0`), in which case `run()` waits for it. Safe to call from any thread, before or after `run()`.
    public func serverListening(port: Int) {
        guard port > 0 else { return }
        boundPortsContinuation.yield(port)
    }

    /// Publishes until graceful shutdown or cancellation, then withdraws the entry group.
    ///
    /// Throws only for an advertisement avahi could never accept (see `MDNSAdvertisement.validate()`).
    public func run() async throws {
        var advertisement = advertisement
        if advertisement.port == 0 {
            advertisement.port = 1  // validated below without the port; the real one comes from the server
        }
        try advertisement.validate()
        await cancelWhenGracefulShutdown {
            guard let advertisement = await self.withBoundPort() else { return }
            await self.publishUntilCancelled(advertisement)
        }
    }

    /// The advertisement with its real port, waiting for `serverListening(port:)` if it says 0;
    /// nil if cancelled first.
    private func withBoundPort() async -> MDNSAdvertisement? {
        var advertisement = self.advertisement
        guard advertisement.port == 0 else { return advertisement }
        logger.debug("Waiting for the server's port before advertising over mDNS")
        for await port in boundPorts {
            advertisement.port = port
            return advertisement
        }
        return nil
    }

    /// One Avahi session after another (a new one when the client fails, e.g. the daemon restarted).
    private func publishUntilCancelled(_ advertisement: MDNSAdvertisement) async {
        var logger = self.logger
        logger[metadataKey: "mdns.port"] = .stringConvertible(advertisement.port)
        var serviceName = advertisement.instanceName
        var warned = false
        var established = false

        while !Task.isCancelled {
            let (events, continuation) = AsyncStream.makeStream(of: PublicationEvent.self)
            let publication = AvahiPublication(
                advertisement: advertisement, serviceName: serviceName, events: continuation)
            var delay = Duration.milliseconds(100)
            do {
                try publication.start()
                for await event in events {
                    switch event {
                    case .waitingForDaemon:
                        if !warned {
                            logger.warning(
                                "\(DiscoveryError.daemonNotRunning.description) (the server keeps running; it will be advertised over mDNS once avahi-daemon is up)"
                            )
                            warned = true
                        }
                    case .established(let name):
                        serviceName = name
                        warned = false
                        established = true
                        logger.info(
                            "Advertising over mDNS as \"\(name)\"",
                            metadata: ["mdns.name": .string(name)])
                    case .renamed(let old, let new):
                        serviceName = new
                        logger.warning(
                            "mDNS name collision: \"\(old)\" is taken; advertising as \"\(new)\" instead",
                            metadata: ["mdns.name": .string(new)])
                    case .failed(let reason):
                        if established {
                            logger.notice("Lost avahi-daemon (\(reason)); will advertise again when it is back")
                            warned = true  // that was the one line about it
                        } else {
                            logger.debug("Avahi session failed (\(reason)); retrying")
                        }
                        established = false
                    }
                    if case .failed = event { break }
                }
            } catch {
                if !warned {
                    logger.warning(
                        "\(error.description) (the server keeps running; mDNS advertising is retried in the background)"
                    )
                    warned = true
                }
                delay = retryDelay
            }
            publication.stop()
            continuation.finish()
            if Task.isCancelled { break }
            try? await Task.sleep(for: delay)
        }
        if established {
            logger.info("Withdrew the mDNS advertisement", metadata: ["mdns.name": .string(serviceName)])
        }
    }
}
