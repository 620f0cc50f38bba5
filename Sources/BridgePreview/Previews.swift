import BridgeProtocol
import Foundation
import Synchronization

/// What the hub's two preview requests call: `listPreviews` (a thread's dev servers) and `openPreview` (a
/// single-use ticket for the preview port, each preview on an origin of its own). Shared with the preview proxy,
/// which redeems the tickets and checks, at each new connection, that a preview's dev server is still the process
/// it was opened for.
public final class Previews: Sendable {
    /// Where a ticket is exchanged for the cookie, on the preview port: `GET /.codex-bridge/open?ticket=…`.
    public static let openPath = "/.codex-bridge/open"
    /// Where the preview's origin starts it (clearing the origin's data when another preview had it before).
    public static let startPath = "/.codex-bridge/start"

    /// The tickets, sessions and origins.
    public let access: PreviewAccess
    private let finder: PreviewFinder
    /// Whether a loopback server answers HTTP (host, port), within a second.
    private let probe: @Sendable (String, Int) async -> Bool
    /// `http` or `https`.
    public let scheme: String
    /// The host the preview URL names (the one the bridge advertises).
    public let host: String
    /// The bridge's main port once it listens (never offered).
    private let mainPort = Mutex<Int?>(nil)
    /// The preview port (where tickets are exchanged), once it listens.
    private let previewPort = Mutex<Int?>(nil)

    /// - Parameters:
    ///   - host: the host in preview URLs (the bridge's advertised address or name).
    ///   - secure: whether the preview ports serve TLS.
    ///   - probe: whether a server answers HTTP (the proxy's ``HTTPProbe``).
    public init(
        host: String, secure: Bool, probe: @escaping @Sendable (String, Int) async -> Bool, finder: PreviewFinder = PreviewFinder(),
        access: PreviewAccess = PreviewAccess()
    ) {
        self.access = access
        self.finder = finder
        self.host = host
        self.scheme = secure ? "https" : "http"
        self.probe = probe
    }

    /// The bridge's main port, once it listens: never offered as a preview.
    public func bridgeListening(port: Int) {
        mainPort.withLock { $0 = port }
    }

    /// The preview port, once the proxy listens there.
    public func previewListening(port: Int) {
        previewPort.withLock { $0 = port }
    }

    /// One more preview origin, once the proxy listens there.
    public func originListening(port: Int) {
        access.originListening(port: port)
    }

    /// The preview port (where tickets are exchanged), once it listens: `helloAck.previewPort`.
    public var port: Int? { previewPort.withLock { $0 } }

    private var excludedPorts: Set<Int> { Set([mainPort.withLock { $0 }, port].compactMap { $0 } + access.originPorts) }

    /// `listPreviews`: the servers of the thread whose directory is `directory` (resolved), with whether each
    /// answers HTTP (probed at once).
    public func list(threadId: String, directory: String) async throws(PreviewError) -> PreviewList {
        try finder.check(directory)
        let found = await finder.servers(in: directory, excluding: excludedPorts)
        let probe = self.probe
        let http = await withTaskGroup(of: (Int, Bool).self) { group in
            for server in found {
                group.addTask { (server.port, await probe(server.connectHost, server.port)) }
            }
            var answers: [Int: Bool] = [:]
            for await (port, speaks) in group { answers[port] = speaks }
            return answers
        }
        return PreviewList(
            threadId: threadId, servers: found.map { PreviewServer(port: $0.port, process: $0.process, http: http[$0.port] ?? false) })
    }

    /// `openPreview`: a ticket for `port`, which must be one of the thread's servers now, on the origin of this
    /// preview (the thread and that port).
    public func open(_ request: OpenPreview, directory: String, deviceId: String?) async throws(PreviewError) -> PreviewOpened {
        guard (1...65535).contains(request.port) else { throw PreviewError(.badRequest, "port must be between 1 and 65535") }
        try finder.check(directory)
        guard let previewPort = port else { throw PreviewError(.unavailable, "the preview port is not listening") }
        let found = await finder.servers(in: directory, excluding: excludedPorts)
        guard let server = found.first(where: { $0.port == request.port }) else {
            throw PreviewError(.notFound, "no server of this thread listens on port \(request.port) now")
        }
        let grant = PreviewGrant(
            deviceId: deviceId, threadId: request.threadId, port: server.port, connectHost: server.connectHost, directory: directory,
            owner: server.owner, sockets: server.sockets)
        let issued = try access.issue(grant)
        let hostPart = host.contains(":") ? "[\(host)]" : host
        let url = "\(scheme)://\(hostPart):\(previewPort)\(Self.openPath)?ticket=\(issued.ticket)"
        return PreviewOpened(threadId: request.threadId, port: server.port, url: url, expiresAt: issued.expiresAt, ticket: issued.ticket)
    }

    /// Whether the process `grant` was issued for still serves its port from the thread's directory (a new
    /// connection of its preview is refused otherwise).
    public func ownership(_ grant: PreviewGrant) async -> PreviewOwnership {
        await finder.ownership(grant)
    }
}
