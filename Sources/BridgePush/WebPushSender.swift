import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Delivers Web Push messages (RFC 8030): encrypted body, `TTL`, `Urgency`, `Topic`, VAPID authorization;
/// retries 429 and 5xx with backoff (honouring `Retry-After`), reports 404/410 as a subscription that is gone.
/// Each attempt asks the ``PushEndpointPolicy`` where to connect (the endpoint's host looked up and every
/// address checked) and connects to exactly that address (the host still names the TLS server), with a client
/// that follows no redirect.
public struct WebPushSender: Sendable {
    /// How one delivery ended.
    public enum Outcome: Sendable, Equatable {
        /// The push service accepted it (2xx).
        case delivered
        /// 404 or 410: the subscription no longer exists; drop it.
        case gone
        /// Anything else, after the retries.
        case failed(String)
    }

    public enum Urgency: String, Sendable {
        case veryLow = "very-low"
        case low
        case normal
        case high
    }

    let configuration: HTTPClient.Configuration
    let policy: PushEndpointPolicy
    let key: VAPIDKey
    let subject: String
    let maxAttempts: Int
    let baseDelay: Duration
    let maxDelay: Duration
    let logger: Logger

    public init(
        policy: PushEndpointPolicy, key: VAPIDKey, subject: String, maxAttempts: Int = 4, baseDelay: Duration = .seconds(1),
        maxDelay: Duration = .seconds(60), logger: Logger
    ) {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(30))
        self.configuration = configuration
        self.policy = policy
        self.key = key
        self.subject = subject
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.logger = logger
    }

    /// Encrypts `payload` for the subscription and posts it.
    public func send(
        _ payload: [UInt8], to endpoint: URL, p256dh: [UInt8], auth: [UInt8], ttl: Int, urgency: Urgency, topic: String? = nil
    ) async -> Outcome {
        let body: [UInt8]
        let authorization: String
        do {
            body = try WebPushEncryption.encrypt(payload, p256dh: p256dh, auth: auth)
            authorization = try key.authorization(endpoint: endpoint, subject: subject)
        } catch {
            return .failed("\(error)")
        }
        var request = HTTPClientRequest(url: endpoint.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.headers.add(name: "Content-Encoding", value: "aes128gcm")
        request.headers.add(name: "TTL", value: String(ttl))
        request.headers.add(name: "Urgency", value: urgency.rawValue)
        if let topic { request.headers.add(name: "Topic", value: topic) }
        request.headers.add(name: "Authorization", value: authorization)
        request.body = .bytes(ByteBuffer(bytes: body))
        let origin = VAPIDKey.origin(of: endpoint) ?? "?"
        var attempt = 0
        while true {
            attempt += 1
            var retryAfter: Duration?
            let reason: String
            do {
                let destination: PushEndpointPolicy.Destination
                do {
                    destination = try await policy.destination(of: endpoint.absoluteString)
                } catch {
                    logger.warning("Push endpoint refused", metadata: ["bridge.push.origin": "\(origin)", "error": "\(error.message)"])
                    return .failed(error.message)
                }
                let (status, retryHeader) = try await post(request, to: destination)
                switch status {
                case 200..<300: return .delivered
                case 404, 410:
                    logger.info("Push subscription gone", metadata: ["bridge.push.origin": "\(origin)", "bridge.push.status": "\(status)"])
                    return .gone
                case 429, 500..<600:
                    retryAfter = Self.retryAfter(retryHeader)
                    reason = "HTTP \(status)"
                default:
                    logger.warning("Push refused", metadata: ["bridge.push.origin": "\(origin)", "bridge.push.status": "\(status)"])
                    return .failed("HTTP \(status)")
                }
            } catch {
                reason = "\(error)"
            }
            guard attempt < maxAttempts, !Task.isCancelled else {
                logger.warning(
                    "Push not delivered",
                    metadata: ["bridge.push.origin": "\(origin)", "bridge.push.attempts": "\(attempt)", "error": "\(reason)"])
                return .failed(reason)
            }
            let backoff = baseDelay * (1 << min(attempt - 1, 10))
            let delay = min(retryAfter ?? backoff, maxDelay)
            logger.debug(
                "Push delivery retried",
                metadata: ["bridge.push.origin": "\(origin)", "bridge.push.reason": "\(reason)", "bridge.push.delay": "\(delay)"])
            try? await Task.sleep(for: delay)
        }
    }

    /// Posts `request` with a client of its own that connects to `destination`'s checked address, and returns
    /// the status and `Retry-After` (the body is read and dropped).
    private func post(_ request: HTTPClientRequest, to destination: PushEndpointPolicy.Destination) async throws -> (Int, String?) {
        var configuration = self.configuration
        if let address = destination.address, InternetAddress(literal: destination.host) == nil {
            configuration.dnsOverride = [destination.host: address.description]
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let response = try await client.execute(request, timeout: .seconds(30))
            _ = try? await response.body.collect(upTo: 64 * 1024)
            try? await client.shutdown()
            return (Int(response.status.code), response.headers.first(name: "Retry-After"))
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// `Retry-After` as delta-seconds or an HTTP date; nil when absent or unreadable.
    static func retryAfter(_ value: String?) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value), seconds >= 0 { return .seconds(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return .seconds(max(0, Int(date.timeIntervalSinceNow.rounded(.up))))
    }
}
