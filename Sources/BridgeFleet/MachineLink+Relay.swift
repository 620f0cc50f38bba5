import BridgeClient
import BridgeHub
import BridgeProtocol
import BridgeStore
import Logging
import Synchronization

extension MachineLink {
    /// Relays what the machine sends on `client` until the connection ends; returns why this bridge closed it,
    /// if it did (`over_budget`, `bad_frame`).
    ///
    /// One subscription to every thread: the machine sends its journal in seq order, so anything at or below the
    /// last relayed seq is a repeat (or a lie) and is dropped. What arrives while the hub journals a batch waits in
    /// a ``RelayBuffer`` and goes in the next one (one transaction per batch, not per message); a batch's bytes
    /// leave the transport's window once the hub has it, so the link reads on only as fast as the hub relays.
    func relay(from client: BridgeClient, ack: HelloAck, cursor: Int64?) async -> WireError? {
        let pending = RelayBuffer(capacity: budget.waitingMessages, maxBatchBytes: budget.inFlightBytes / 2)
        let problem = FirstProblem()
        let directory = self.directory
        let machineId = machine.id
        let linkDevice = machine.deviceId
        let budget = self.budget
        let logger = self.logger
        let subscribed = (ack.restoredSubscriptions ?? []).contains("*")
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await frame in client.relayed where !pending.append(frame) {
                    // Too far behind: close; the next connection resumes after the last message relayed.
                    problem.set(WireError(code: .overBudget, message: "more than \(budget.waitingMessages) messages waiting to be relayed"))
                    await client.close()
                    break
                }
                pending.finish()
            }
            if !subscribed {
                group.addTask {
                    _ = try? await client.send(
                        BridgeRequest(.subscribe, Subscribe(threadId: "*", afterSeq: ack.resume == .ok ? cursor : nil)))
                }
            }
            group.addTask { await self.refreshThreads() }
            var relayedThrough = cursor ?? ack.lastSeq ?? 0
            while let batch = await pending.next() {
                defer { meter.record(buffer: pending) }
                var fresh: [RelayedFrame] = []
                for frame in batch {
                    guard let seq = frame.message.seq, seq > relayedThrough else { continue }
                    relayedThrough = seq
                    fresh.append(frame)
                }
                guard !fresh.isEmpty, problem.value == nil else {
                    await client.consumed(batch)
                    continue
                }
                // Another machine's thread, or one the home bridge runs itself: not this machine's to speak for.
                // What a message makes this machine's (its thread, approval, question) is recorded before a phone
                // sees it; a thread beyond the machine's share of the directory is over its budget.
                let outcome = await hub.relay(fresh, from: ref, budget: budget) { message in
                    directory.withLock { directory in
                        if let threadId = message.threadId, directory.isOverBudget(machineId, naming: threadId, limit: budget.threads) {
                            problem.set(WireError(code: .overBudget, message: "more than \(budget.threads) threads"))
                            return nil
                        }
                        return directory.admit(message, from: machineId, linkDevice: linkDevice)
                    }
                }
                await client.consumed(batch)
                if let refusal = outcome.refusal { problem.set(refusal) }
                if problem.value != nil {
                    await client.close()
                } else if outcome.relayed < fresh.count {
                    logger.notice("Dropped messages of a linked machine for threads it does not own")
                }
            }
        }
        return problem.value
    }
}

/// The first reason to close a connection, set from the reader or the relay.
final class FirstProblem: Sendable {
    private let slot = Mutex<WireError?>(nil)

    var value: WireError? { slot.withLock { $0 } }

    func set(_ problem: WireError) {
        slot.withLock { $0 = $0 ?? problem }
    }
}
