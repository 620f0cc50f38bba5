internal import CAvahiClient

#if canImport(Glibc)
    import Glibc
#endif

/// What the Avahi thread reports to `MDNSBrowser.browse`.
enum BrowseEvent: Sendable, Equatable {
    /// A service instance appeared on one interface/family; a resolver was started for it.
    case found
    /// A resolver finished.
    case resolved(ResolvedService)
    /// A resolver gave up (timeout, vanished service).
    case unresolved
    /// Avahi believes it has reported everything it currently knows.
    case allForNow
    /// The browse timeout elapsed.
    case deadline
    /// The client or the browser failed.
    case failed(String)
}

/// One libavahi-client session browsing one service type: a threaded poll, a client, a service browser and
/// the resolvers it starts.
///
/// Thread safety, why this class is sound without being `Sendable`: it is owned by the single task running
/// `MDNSBrowser.browse`. Its mutable state (`poll`, `client`, `browser`) is set in `start()` before the poll
/// thread runs and cleared in `stop()` under `avahi_threaded_poll_lock` or after `avahi_threaded_poll_stop` has
/// joined the thread; the C callbacks, which run on Avahi's thread with that lock held, only read `type` and
/// report through `events`, a `Sendable` continuation.
final class AvahiBrowse {
    private let type: String
    private let events: AsyncStream<BrowseEvent>.Continuation
    private var poll: OpaquePointer?
    private var client: OpaquePointer?
    private var browser: OpaquePointer?

    init(type: String, events: AsyncStream<BrowseEvent>.Continuation) {
        self.type = type
        self.events = events
    }

    deinit {
        stop()
    }

    /// Connects to avahi-daemon and starts browsing; throws `DiscoveryError.daemonNotRunning` without a daemon.
    func start() throws(DiscoveryError) {
        guard let poll = avahi_threaded_poll_new() else {
            throw .avahi("avahi_threaded_poll_new", "out of memory")
        }
        self.poll = poll
        let context = Unmanaged.passUnretained(self).toOpaque()
        var error: Int32 = 0
        guard
            let client = avahi_client_new(
                avahi_threaded_poll_get(poll), AvahiClientFlags(0), Self.clientCallback, context, &error)
        else {
            throw AvahiErrors.clientCreationError(error)
        }
        self.client = client
        guard
            let browser = avahi_service_browser_new(
                client, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), type, nil,
                AvahiLookupFlags(0), Self.browserCallback, context)
        else {
            throw .avahi("browsing \(type)", AvahiErrors.message(avahi_client_errno(client)))
        }
        self.browser = browser
        guard avahi_threaded_poll_start(poll) >= 0 else {
            throw .avahi("avahi_threaded_poll_start", "cannot start the Avahi thread")
        }
    }

    /// Stops browsing and frees everything (pending resolvers go with the client). Idempotent.
    func stop() {
        guard let poll else { return }
        avahi_threaded_poll_lock(poll)
        if let browser {
            avahi_service_browser_free(browser)
            self.browser = nil
        }
        avahi_threaded_poll_unlock(poll)
        avahi_threaded_poll_stop(poll)
        if let client {
            avahi_client_free(client)
            self.client = nil
        }
        avahi_threaded_poll_free(poll)
        self.poll = nil
    }

    // MARK: - C callbacks (Avahi's thread, lock held)

    private static let clientCallback: AvahiClientCallback = { client, state, context in
        guard let client, let context, state == AVAHI_CLIENT_FAILURE else { return }
        Unmanaged<AvahiBrowse>.fromOpaque(context).takeUnretainedValue()
            .events.yield(.failed(AvahiErrors.message(avahi_client_errno(client))))
    }

    private static let browserCallback: AvahiServiceBrowserCallback = {
        browser, interface, proto, event, name, type, domain, _, context in
        guard let browser, let context else { return }
        let this = Unmanaged<AvahiBrowse>.fromOpaque(context).takeUnretainedValue()
        switch event {
        case AVAHI_BROWSER_NEW:
            guard let client = avahi_service_browser_get_client(browser),
                avahi_service_resolver_new(
                    client, interface, proto, name, type, domain, AvahiProtocol(AVAHI_PROTO_UNSPEC),
                    AvahiLookupFlags(0), AvahiBrowse.resolverCallback, context) != nil
            else { return }
            this.events.yield(.found)
        case AVAHI_BROWSER_ALL_FOR_NOW:
            this.events.yield(.allForNow)
        case AVAHI_BROWSER_FAILURE:
            let client = avahi_service_browser_get_client(browser)
            this.events.yield(.failed(AvahiErrors.message(client.map { avahi_client_errno($0) } ?? -1)))
        default:
            break
        }
    }

    private static let resolverCallback: AvahiServiceResolverCallback = {
        resolver, interface, _, event, name, type, domain, host, address, port, txt, _, context in
        guard let resolver, let context else { return }
        let this = Unmanaged<AvahiBrowse>.fromOpaque(context).takeUnretainedValue()
        if event == AVAHI_RESOLVER_FOUND, let name, let type, let domain {
            let service = ResolvedService(
                name: String(cString: name),
                type: String(cString: type),
                domain: String(cString: domain),
                host: host.map { String(cString: $0) } ?? "",
                address: address.map { AvahiBrowse.format($0, interface: interface) } ?? "",
                port: Int(port),
                txt: AvahiBrowse.pairs(txt))
            this.events.yield(.resolved(service))
        } else {
            this.events.yield(.unresolved)
        }
        avahi_service_resolver_free(resolver)
    }

    /// `192.168.1.5`, `fd00::2`, or `fe80::1%eth0` (a link-local address is useless without its interface).
    private static func format(_ address: UnsafePointer<AvahiAddress>, interface: AvahiIfIndex) -> String {
        var buffer = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
        guard avahi_address_snprint(&buffer, buffer.count, address) != nil else { return "" }
        var text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.lowercased().hasPrefix("fe80:"), interface >= 0 {
            var name = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
            if if_indextoname(UInt32(interface), &name) != nil {
                text += "%" + String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
        return text
    }

    /// TXT entries as a dictionary; `key` without `=` maps to "", the first of duplicate keys wins (RFC 6763 §6.4).
    private static func pairs(_ list: UnsafeMutablePointer<AvahiStringList>?) -> [String: String] {
        var result: [String: String] = [:]
        var node = list
        while let current = node {
            var key: UnsafeMutablePointer<CChar>?
            var value: UnsafeMutablePointer<CChar>?
            var size = 0
            if avahi_string_list_get_pair(current, &key, &value, &size) == 0, let key {
                let name = String(cString: key)
                let text =
                    value.map { pointer in
                        pointer.withMemoryRebound(to: UInt8.self, capacity: size) {
                            String(decoding: UnsafeBufferPointer(start: $0, count: size), as: UTF8.self)
                        }
                    } ?? ""
                // avahi_string_list_add_pair prepends, so the list runs last-added first: later wins here.
                result[name] = text
                avahi_free(key)
                avahi_free(value)
            }
            node = avahi_string_list_get_next(current)
        }
        return result
    }
}
