internal import CAvahiClient

/// What the Avahi thread reports to `MDNSPublisher`'s task.
enum PublicationEvent: Sendable, Equatable {
    /// The client waits for avahi-daemon to appear (it is not running).
    case waitingForDaemon
    /// The entry group is registered under this instance name.
    case established(name: String)
    /// The name was taken (by another host or instance); Avahi's alternative is registered instead.
    case renamed(from: String, to: String)
    /// The client or the entry group failed (e.g. the daemon went away); the session must be rebuilt.
    case failed(String)
}

/// One libavahi-client session publishing one advertisement: a threaded poll, a client and an entry group.
///
/// Thread safety, why this class is sound without being `Sendable`: it is owned by a single task
/// (`MDNSPublisher.publishUntilCancelled`). Its mutable state (`client`, `group`, `serviceName`) is touched
///   - in `start()` before the poll thread exists (callbacks fired inside `avahi_client_new` run on the caller),
///   - by C callbacks, which run on Avahi's poll thread with the threaded-poll lock held,
///   - in `stop()` under `avahi_threaded_poll_lock`, then after `avahi_threaded_poll_stop` has joined the thread.
/// Everything else leaves through `events`, an `AsyncStream` continuation (itself `Sendable`).
final class AvahiPublication {
    private let advertisement: MDNSAdvertisement
    private let events: AsyncStream<PublicationEvent>.Continuation
    private var serviceName: String
    private var poll: OpaquePointer?
    private var client: OpaquePointer?
    private var group: OpaquePointer?

    init(advertisement: MDNSAdvertisement, serviceName: String, events: AsyncStream<PublicationEvent>.Continuation) {
        self.advertisement = advertisement
        self.serviceName = serviceName
        self.events = events
    }

    deinit {
        stop()
    }

    /// Connects to avahi-daemon (or waits for it: `AVAHI_CLIENT_NO_FAIL`) and starts the poll thread.
    /// Throws when the client cannot even be created, e.g. without a D-Bus system bus.
    func start() throws(DiscoveryError) {
        guard let poll = avahi_threaded_poll_new() else {
            throw .avahi("avahi_threaded_poll_new", "out of memory")
        }
        self.poll = poll
        var error: Int32 = 0
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard
            let client = avahi_client_new(
                avahi_threaded_poll_get(poll), AVAHI_CLIENT_NO_FAIL, Self.clientCallback, context, &error)
        else {
            throw AvahiErrors.clientCreationError(error)
        }
        self.client = client
        guard avahi_threaded_poll_start(poll) >= 0 else {
            throw .avahi("avahi_threaded_poll_start", "cannot start the Avahi thread")
        }
    }

    /// Withdraws the entry group (goodbye packets go out), stops the poll thread and frees everything. Idempotent.
    func stop() {
        guard let poll else { return }
        avahi_threaded_poll_lock(poll)
        if let group {
            avahi_entry_group_free(group)
            self.group = nil
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
        guard let client, let context else { return }
        Unmanaged<AvahiPublication>.fromOpaque(context).takeUnretainedValue().clientChanged(client, state)
    }

    private static let groupCallback: AvahiEntryGroupCallback = { group, state, context in
        guard let group, let context else { return }
        Unmanaged<AvahiPublication>.fromOpaque(context).takeUnretainedValue().groupChanged(group, state)
    }

    private func clientChanged(_ client: OpaquePointer, _ state: AvahiClientState) {
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            register(client)
        case AVAHI_CLIENT_S_COLLISION, AVAHI_CLIENT_S_REGISTERING:
            // The host name is being (re)registered: withdraw, and register again once RUNNING.
            if let group { avahi_entry_group_reset(group) }
        case AVAHI_CLIENT_CONNECTING:
            events.yield(.waitingForDaemon)
        case AVAHI_CLIENT_FAILURE:
            events.yield(.failed(AvahiErrors.message(avahi_client_errno(client))))
        default:
            break
        }
    }

    private func groupChanged(_ group: OpaquePointer, _ state: AvahiEntryGroupState) {
        switch state {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            events.yield(.established(name: serviceName))
        case AVAHI_ENTRY_GROUP_COLLISION:
            // Another host answered for our name after we announced it.
            rename()
            avahi_entry_group_reset(group)
            addAndCommit(group)
        case AVAHI_ENTRY_GROUP_FAILURE:
            let client = avahi_entry_group_get_client(group)
            events.yield(.failed(AvahiErrors.message(client.map { avahi_client_errno($0) } ?? Int32(AVAHI_ERR_FAILURE))))
        default:
            break
        }
    }

    /// Creates the entry group if needed and publishes into it when it is empty.
    private func register(_ client: OpaquePointer) {
        if group == nil {
            let context = Unmanaged.passUnretained(self).toOpaque()
            guard let created = avahi_entry_group_new(client, Self.groupCallback, context) else {
                events.yield(.failed("avahi_entry_group_new: " + AvahiErrors.message(avahi_client_errno(client))))
                return
            }
            group = created
        }
        if let group, avahi_entry_group_is_empty(group) != 0 {
            addAndCommit(group)
        }
    }

    private func addAndCommit(_ group: OpaquePointer) {
        var txt: UnsafeMutablePointer<AvahiStringList>? = nil
        // avahi_string_list_add_pair prepends: add in reverse to publish in key order.
        for (key, value) in advertisement.txt.sorted(by: { $0.key > $1.key }) {
            txt = avahi_string_list_add_pair(txt, key, value)
        }
        defer { avahi_string_list_free(txt) }

        // A local collision (same name already registered on this daemon) is reported right here.
        for _ in 0..<32 {
            let added = avahi_entry_group_add_service_strlst(
                group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(0),
                serviceName, advertisement.type, nil, nil, UInt16(advertisement.port), txt)
            if Int(added) == AVAHI_ERR_COLLISION {
                rename()
                continue
            }
            guard added >= 0 else {
                events.yield(.failed("adding the service: " + AvahiErrors.message(added)))
                return
            }
            let committed = avahi_entry_group_commit(group)
            if committed < 0 {
                events.yield(.failed("committing the entry group: " + AvahiErrors.message(committed)))
            }
            return
        }
        events.yield(.failed("no free alternative for the service name \(serviceName)"))
    }

    private func rename() {
        let old = serviceName
        if let alternative = avahi_alternative_service_name(old) {
            serviceName = String(cString: alternative)
            avahi_free(alternative)
        }
        events.yield(.renamed(from: old, to: serviceName))
    }
}
