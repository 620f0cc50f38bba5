import BridgeStore
import Foundation
import Logging
import ServiceLifecycle

/// Prunes the event journal (age and size), old request answers and the audit log (age) in the background, every
/// ``JournalRetention/interval``. A `Service`; ends on graceful shutdown.
public struct JournalPruner: Service, CustomStringConvertible {
    private let journal: EventJournal
    private let memory: ClientMemory
    private let audit: AuditLog
    private let retention: JournalRetention
    private let logger: Logger

    public init(storage: HubStorage, logger: Logger) {
        self.journal = storage.journal
        self.memory = storage.memory
        self.audit = storage.audit
        self.retention = storage.retention
        self.logger = logger
    }

    public var description: String { "JournalPruner" }

    public func run() async throws {
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            await pruneOnce()
            let interval = Duration.milliseconds(Int64(retention.interval * 1000))
            _ = try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }

    /// One pass; failures are logged and retried on the next pass.
    func pruneOnce() async {
        do {
            // Each linked machine's share first, so what a link relays is pruned before this bridge's own.
            try await journal.pruneRelayed(share: Int64(Double(retention.maxBytes) * LinkBudget.standard.journalShare))
            try await journal.prune(maxAge: retention.maxAge, maxBytes: retention.maxBytes)
            try await memory.pruneAnswers(maxAge: retention.answerMaxAge)
            try await audit.prune(maxAge: retention.maxAge)
        } catch {
            logger.warning("Cannot prune the journal", metadata: ["error": "\(error)"])
        }
    }
}
