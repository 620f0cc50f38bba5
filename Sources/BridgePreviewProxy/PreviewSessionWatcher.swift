import BridgePreview
import Logging
import ServiceLifecycle

/// Ends preview sessions whose device may no longer preview (revoked, deleted, or without `operate`), and
/// those past their 12 hours, every `interval`: with 1 s, within 2 s of the change, even one made by another
/// process (`codex-bridge devices revoke`). Their connections, WebSockets included, are closed.
struct PreviewSessionWatcher: Service {
    let access: PreviewAccess
    let interval: Duration
    let logger: Logger
    let refused: @Sendable (Set<String>) async -> Set<String>

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
                await checkOnce()
            }
        }
    }

    func checkOnce() async {
        let devices = access.deviceIds
        var refusedNow = Set<String>()
        if !devices.isEmpty { refusedNow = await refused(devices) }
        let gone = refusedNow
        let ended = access.end { grant in grant.deviceId.map { gone.contains($0) } ?? false }
        if !ended.isEmpty {
            logger.notice(
                "Preview sessions ended", metadata: ["bridge.preview.sessions": "\(ended.count)", "bridge.devices": "\(gone.sorted())"])
        }
    }
}
