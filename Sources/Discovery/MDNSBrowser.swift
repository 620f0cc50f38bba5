/// Finds codex-bridge servers (or any DNS-SD service type) through avahi-daemon.
public enum MDNSBrowser {
    /// Browses `type`, resolves every instance found and returns them merged across interfaces and families.
    ///
    /// Returns as soon as Avahi has reported everything it knows and every instance is resolved, or when
    /// `timeout` elapses, whichever comes first.
    ///
    /// - Throws: `DiscoveryError.daemonNotRunning` (with the fix) when avahi-daemon is not running, or another
    ///   `DiscoveryError` when the browse fails.
    public static func browse(
        type: String = MDNSAdvertisement.serviceType,
        timeout: Duration
    ) async throws -> [DiscoveredBridge] {
        let (events, continuation) = AsyncStream.makeStream(of: BrowseEvent.self)
        let browse = AvahiBrowse(type: type, events: continuation)
        defer {
            browse.stop()
            continuation.finish()
        }
        try browse.start()

        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try? await Task.sleep(for: timeout)
                continuation.yield(.deadline)
            }
            defer { group.cancelAll() }

            var collector = DiscoveredBridgeCollector()
            var pending = 0
            var allForNow = false
            for await event in events {
                switch event {
                case .found:
                    pending += 1
                case .resolved(let service):
                    pending -= 1
                    collector.add(service)
                case .unresolved:
                    pending -= 1
                case .allForNow:
                    allForNow = true
                case .deadline:
                    return collector.bridgesByName
                case .failed(let reason):
                    throw DiscoveryError.avahi("browsing \(type)", reason)
                }
                if allForNow, pending <= 0 { break }
            }
            return collector.bridgesByName
        }
    }
}
