import Foundation

/// Where the bridge may send a Web Push message. A subscription's endpoint comes from a paired device, so it
/// must not be able to aim the bridge's POSTs at the workstation's own services or its network:
/// - `https://` on a host that resolves only to public unicast addresses (``InternetAddress/isPublicUnicast``),
///   checked when subscribing and again at each delivery, where the connection goes to the address that was
///   checked (no second lookup a rebinding DNS server could answer differently);
/// - no user or password in the URL, at most ``maxEndpointBytes``; redirects are never followed (the sender's
///   HTTP client is configured so);
/// - a host the workstation's user allowed (`serve --allow-push-host`, `allow_push_hosts`) is exempt: any
///   scheme of http and https, any port, any address (tests and private push services).
public struct PushEndpointPolicy: Sendable, Hashable {
    /// Longest endpoint accepted.
    public static let maxEndpointBytes = 2048

    /// Hosts exempt from the address rules, lowercased, without brackets.
    public let allowedHosts: Set<String>

    public init(allowedHosts: [String] = []) {
        self.allowedHosts = Set(allowedHosts.map(Self.normalized))
    }

    /// Where one delivery connects: the URL's host, and the address to connect to in its place (nil: an allowed
    /// host, resolved as usual).
    public struct Destination: Sendable, Hashable {
        public var host: String
        public var address: InternetAddress?
    }

    /// The checks that need no lookup: scheme, host, size, no credentials, an address literal's class.
    public func check(_ endpoint: String) throws(PushError) -> URL {
        guard endpoint.utf8.count <= Self.maxEndpointBytes, let url = URL(string: endpoint), let scheme = url.scheme?.lowercased(),
            let host = url.host, !host.isEmpty, url.user == nil, url.password == nil
        else {
            throw PushError("bad_request", "subscription.endpoint must be an absolute https URL of at most \(Self.maxEndpointBytes) bytes")
        }
        if allowedHosts.contains(Self.normalized(host)) {
            guard scheme == "https" || scheme == "http" else {
                throw PushError("bad_request", "subscription.endpoint must be an http or https URL")
            }
            return url
        }
        guard scheme == "https" else {
            throw PushError("bad_request", "subscription.endpoint must be https (serve --allow-push-host allows others)")
        }
        if let literal = InternetAddress(literal: host), !literal.isPublicUnicast {
            throw PushError("forbidden", "subscription.endpoint must be a public address, not \(literal)")
        }
        return url
    }

    /// ``check(_:)``, then the lookup: every address the host resolves to must be public; returns the one to
    /// connect to. Blocks in `getaddrinfo`, so it runs off the caller's executor.
    @concurrent
    public func destination(of endpoint: String) async throws(PushError) -> Destination {
        let url = try check(endpoint)
        let host = Self.normalized(url.host ?? "")
        if allowedHosts.contains(host) { return Destination(host: url.host ?? host, address: nil) }
        if let literal = InternetAddress(literal: host) { return Destination(host: url.host ?? host, address: literal) }
        let addresses = InternetAddress.resolve(host)
        guard let first = addresses.first else {
            throw PushError("bad_request", "subscription.endpoint's host \(host.prefix(253)) does not resolve")
        }
        if let refused = addresses.first(where: { !$0.isPublicUnicast }) {
            throw PushError("forbidden", "subscription.endpoint's host \(host.prefix(253)) resolves to \(refused), which is not public")
        }
        return Destination(host: url.host ?? host, address: first)
    }

    static func normalized(_ host: String) -> String {
        let lower = host.lowercased()
        return lower.hasPrefix("[") && lower.hasSuffix("]") ? String(lower.dropFirst().dropLast()) : lower
    }
}
