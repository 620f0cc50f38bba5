import BridgeStore
import Foundation
import Logging

/// What the hub keeps on disk: the event journal, client memory (subscriptions, request answers), devices and
/// their acks, and the audit log, all in one ``BridgeDatabase``.
public struct HubStorage: Sendable {
    public let journal: EventJournal
    public let memory: ClientMemory
    public let devices: DeviceRegistry
    public let retention: JournalRetention
    public let threadPolicies: ThreadPolicyStore
    /// Follow-ups waiting behind a running turn.
    public let queue: QueuedMessageStore
    /// Who did what (pruned with the journal's age).
    public let audit: AuditLog
    /// Threads' collaboration modes and turns' plans.
    public let plans: ThreadPlanStore

    public init(database: BridgeDatabase, retention: JournalRetention = JournalRetention(), logger: Logger) {
        self.journal = EventJournal(database: database, logger: logger)
        self.memory = ClientMemory(database: database)
        self.devices = DeviceRegistry(database: database, logger: logger)
        self.retention = retention
        self.threadPolicies = ThreadPolicyStore(database: database)
        self.queue = QueuedMessageStore(database: database)
        self.audit = AuditLog(database: database)
        self.plans = ThreadPlanStore(database: database)
    }
}
