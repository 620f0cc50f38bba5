import BridgeProtocol
import Foundation
import Logging
import Synchronization

extension CodexAppServer {
    /// What the reader took from one line.
    enum ReadItem {
        /// A notification or server request, for the consumer.
        case inbound(CodexInbound)
        /// An answer to one of our requests.
        case answer(id: JSONValue, Result<JSONValue, CodexError>)
    }

    /// Where the reader is with respect to the consumer (only under a supervisor: ``sink``).
    enum DeliveryPhase {
        /// Before the `initialize` answer: what arrives is kept until the supervisor opened the gate.
        case handshaking(held: [CodexEvent])
        case delivering
        /// The handshake failed: nothing is delivered (as no `.started` was published).
        case dropping
    }

    /// Reads the lines of `buffer` (via `splitter`) and hands them over; see ``deliver(_:phase:)``.
    func read(_ line: UnsafeRawBufferPointer, into items: inout [ReadItem], cache: inout IdCache) {
        if !options.relayedMethods.isEmpty, let scan = CodexLineScanner.scanNotification(line),
            let relayed = relayed(scan, line, cache: &cache)
        {
            items.append(.inbound(.relayed(relayed)))
            return
        }
        let message: CodexWireMessage
        do {
            message = try CodexWireMessage(json: Data(line))
        } catch {
            logger.warning("ignoring a line from codex that is not JSON-RPC", metadata: ["error": "\(error)"])
            return
        }
        switch message {
        case .response(let id, let result):
            items.append(.answer(id: id, .success(result)))
        case .errorResponse(let id, let code, let message, let data):
            items.append(.answer(id: id, .failure(.rpc(code: code, message: message, data: data))))
        case .notification(let method, let params, let paramsJSON):
            items.append(.inbound(.notification(CodexNotification(method: method, params: params, paramsJSON: paramsJSON))))
        case .request(let id, let method, let params):
            items.append(.inbound(.serverRequest(id: CodexRequestID(generation: generation, value: id), method: method, params: params)))
        }
    }

    /// A scanned notification as `.relayed` when its method is relayed and its ids are where the scan looks.
    private func relayed(_ scan: CodexLineScan, _ line: UnsafeRawBufferPointer, cache: inout IdCache) -> CodexRelayedNotification? {
        // The hub takes the thread id from `threadId` before `thread.id`, the turn id from `turnId` before `turn`,
        // and a new thread's cwd from `thread`: relayed only when what the scan found is all there is.
        guard let threadRange = scan.threadId, !scan.hasThread, scan.turnId != nil || !scan.hasTurn,
            let found = cache.method(UnsafeRawBufferPointer(rebasing: line[scan.method]), in: options.relayedMethods)
        else { return nil }
        let (method, kind) = found
        let threadId: String
        var turnId: String?
        if scan.idsEscaped {
            // Decoded by the full parser (rare: ids are plain ASCII).
            guard let thread = Self.decodeString(line, threadRange) else { return nil }
            threadId = thread
            if let turnRange = scan.turnId {
                guard let turn = Self.decodeString(line, turnRange) else { return nil }
                turnId = turn
            }
        } else {
            threadId = cache.thread.string(UnsafeRawBufferPointer(rebasing: line[threadRange]))
            turnId = scan.turnId.map { cache.turn.string(UnsafeRawBufferPointer(rebasing: line[$0])) }
        }
        let paramsJSON = String(decoding: UnsafeRawBufferPointer(rebasing: line[scan.params]), as: UTF8.self)
        return CodexRelayedNotification(method: method, kind: kind, threadId: threadId, turnId: turnId, paramsJSON: paramsJSON)
    }

    /// The string whose contents are at `range` (its quotes around it), escapes decoded.
    private static func decodeString(_ line: UnsafeRawBufferPointer, _ range: Range<Int>) -> String? {
        let quoted = Data(UnsafeRawBufferPointer(rebasing: line[(range.lowerBound - 1)..<(range.upperBound + 1)]))
        return (try? JSONValue(parsing: quoted))?.stringValue
    }

    /// Hands the notifications and server requests of `items` to the consumer in one batch per run of them
    /// (one wake-up per read, not per line) and resolves answers, in line order: an answer is resolved only
    /// after what came before it was handed over.
    func deliver(_ items: [ReadItem], phase: inout DeliveryPhase) async {
        // Wrapped as the supervisor's stream takes them as they are collected (one array and one copy of each less).
        var batch: [CodexEvent] = []
        batch.reserveCapacity(items.count)
        for item in items {
            switch item {
            case .inbound(let message):
                batch.append(.inbound(message))
            case .answer(let id, let result):
                await send(batch, phase: &phase)
                batch.removeAll(keepingCapacity: true)
                let isInitialize = id.intValue != nil && id.intValue == state.withLock { $0.initializeID }
                resolve(id: id, with: result)
                if isInitialize, sink != nil, case .handshaking(let held) = phase {
                    // The supervisor publishes `.started` first, then opens the gate.
                    if await deliveryGate.wait() {
                        phase = .delivering
                        await send(held, phase: &phase)
                    } else {
                        phase = .dropping
                    }
                }
            }
        }
        await send(batch, phase: &phase)
    }

    private func send(_ batch: [CodexEvent], phase: inout DeliveryPhase) async {
        guard !batch.isEmpty else { return }
        guard let sink else {
            await inbound.send(contentsOf: batch.compactMap { if case .inbound(let message) = $0 { message } else { nil } })
            return
        }
        switch phase {
        case .handshaking(var held):
            held.append(contentsOf: batch)
            phase = .handshaking(held: held)
        case .delivering:
            await sink.send(contentsOf: batch)
        case .dropping:
            break
        }
    }

    /// Whole lines (the socket's frames, the unterminated rest of stdout) through the same path.
    func handle(lines: [Data], phase: inout DeliveryPhase, cache: inout IdCache) async {
        var items: [ReadItem] = []
        for line in lines where !line.isEmpty {
            line.withUnsafeBytes { read($0, into: &items, cache: &cache) }
        }
        await deliver(items, phase: &phase)
    }

    /// The relayed method names and the last thread and turn ids, reused while they repeat (no new string
    /// per delta).
    struct IdCache {
        struct Last {
            var bytes: [UInt8] = []
            var string = ""

            mutating func string(_ raw: UnsafeRawBufferPointer) -> String {
                if raw.count == bytes.count,
                    raw.isEmpty || bytes.withUnsafeBytes({ memcmp($0.baseAddress!, raw.baseAddress!, raw.count) == 0 })
                {
                    return string
                }
                bytes = Array(raw)
                string = String(decoding: raw, as: UTF8.self)
                return string
            }
        }
        var thread = Last()
        var turn = Last()
        private var methods: [(bytes: [UInt8], name: String, kind: CodexNotification.Kind?)] = []

        /// The relayed method spelled by `raw` and its kind, or nil.
        mutating func method(_ raw: UnsafeRawBufferPointer, in relayed: Set<String>) -> (String, CodexNotification.Kind?)? {
            if methods.isEmpty { methods = relayed.map { (Array($0.utf8), $0, CodexNotification.Kind(method: $0)) } }
            for (bytes, name, kind) in methods where bytes.count == raw.count && !raw.isEmpty {
                if bytes.withUnsafeBytes({ memcmp($0.baseAddress!, raw.baseAddress!, raw.count) == 0 }) { return (name, kind) }
            }
            return nil
        }
    }
}

/// Opened once by the supervisor: true to deliver (after `.started` went out), false to drop.
final class DeliveryGate: Sendable {
    private struct State {
        var verdict: Bool?
        var waiter: CheckedContinuation<Bool, Never>?
    }
    private let state = Mutex(State())

    func open(_ deliver: Bool) {
        let waiter: CheckedContinuation<Bool, Never>? = state.withLock { state in
            guard state.verdict == nil else { return nil }
            state.verdict = deliver
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: deliver)
    }

    func wait() async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let now: Bool? = state.withLock { state in
                if let verdict = state.verdict { return verdict }
                state.waiter = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }
}
