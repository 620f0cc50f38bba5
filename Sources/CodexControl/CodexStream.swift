import Synchronization

/// A single-consumer async sequence with backpressure: a producer that gets more than `capacity` elements
/// ahead of the consumer waits, so a Codex that floods notifications is slowed down instead of growing memory.
///
/// Iterate it from exactly one task. Ending that iteration (or cancelling its task) ends the stream: later
/// elements are dropped and producers no longer wait.
public struct CodexStream<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = Never

    let storage: Storage

    /// An empty stream; its producer (the supervisor, or a fake Codex in tests) calls ``send(_:)``.
    public init(capacity: Int) {
        storage = Storage(capacity: Swift.max(1, capacity))
    }

    public func makeAsyncIterator() -> Iterator { Iterator(storage: storage) }

    /// Iterates a ``CodexStream``.
    public struct Iterator: AsyncIteratorProtocol {
        let storage: Storage

        public mutating func next() async -> Element? { await storage.next() }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            await storage.next()
        }
    }

    /// Appends an element; waits while the consumer is `capacity` elements behind. False when the stream
    /// was finished or its consumer went away (the element is dropped).
    @discardableResult
    public func send(_ element: Element) async -> Bool { await storage.send(element) }

    /// Appends elements in order with one hand-off (the consumer takes them in one wake-up); waits while the
    /// consumer is `capacity` elements behind. False when the stream was finished or its consumer went away.
    @discardableResult
    func send(contentsOf elements: [Element]) async -> Bool {
        guard !elements.isEmpty else { return true }
        return await storage.send(contentsOf: elements)
    }

    /// Ends the stream once the consumer has taken the elements already sent.
    public func finish() { storage.finish() }

    /// Up to `limit` elements already waiting, in order, taken in one step; empty when none wait.
    public func poll(limit: Int) -> [Element] { storage.poll(limit: limit) }

    /// True while a producer waits for the consumer.
    var isProducerWaiting: Bool { storage.isProducerWaiting }

    /// How many elements were ever accepted (dropped ones aside): a consumer that counts what it took knows it has
    /// taken everything sent before a moment once its count reaches this figure read at that moment.
    public var sentCount: Int { storage.sentCount }

    final class Storage: Sendable {
        private struct State {
            var items: [Element] = []
            var head = 0
            var finished = false
            var terminated = false
            var consumer: CheckedContinuation<Element?, Never>?
            var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
            var nextWaiter = 0
            /// Elements accepted so far.
            var sent = 0
            var count: Int { items.count - head }

            mutating func pop() -> Element? {
                guard head < items.count else { return nil }
                let element = items[head]
                head += 1
                if head == items.count {
                    items.removeAll(keepingCapacity: true)
                    head = 0
                } else if head >= 1024, head * 2 >= items.count {
                    items.removeFirst(head)
                    head = 0
                }
                return element
            }

            /// Up to `limit` elements, in order. When that is all that wait, the storage itself is handed over (the
            /// elements moved, not copied: no retain now and release later of each, on a flood of deltas).
            mutating func take(_ limit: Int) -> [Element] {
                let taking = Swift.min(limit, count)
                guard taking > 0 else { return [] }
                guard taking < count else {
                    if head > 0 { items.removeFirst(head) }
                    head = 0
                    var taken: [Element] = []
                    swap(&taken, &items)
                    items.reserveCapacity(taken.count)
                    return taken
                }
                let taken = Array(items[head..<(head + taking)])
                head += taking
                if head >= 1024, head * 2 >= items.count {
                    items.removeFirst(head)
                    head = 0
                }
                return taken
            }
        }

        private enum SendAction {
            case dropped, queued
            case mustWait(Int)
        }
        private enum NextAction {
            case element(Element, [CheckedContinuation<Void, Never>])
            case end, wait
        }
        private enum NextNow {
            case value(Element?)
            case registered
        }

        private let capacity: Int
        private let state = Mutex(State())

        init(capacity: Int) { self.capacity = capacity }

        var isProducerWaiting: Bool { state.withLock { !$0.waiters.isEmpty } }
        var sentCount: Int { state.withLock { $0.sent } }

        func send(_ element: Element) async -> Bool {
            await send(contentsOf: CollectionOfOne(element))
        }

        func send(contentsOf elements: some Collection<Element>) async -> Bool {
            let (handOver, action): ((CheckedContinuation<Element?, Never>, Element)?, SendAction) = state.withLock { state in
                if state.finished || state.terminated { return (nil, .dropped) }
                state.sent += elements.count
                var rest = elements[...]
                var handOver: (CheckedContinuation<Element?, Never>, Element)?
                if let waiting = state.consumer, let first = rest.popFirst() {
                    state.consumer = nil
                    handOver = (waiting, first)
                }
                state.items.append(contentsOf: rest)
                guard state.count > capacity else { return (handOver, .queued) }
                state.nextWaiter += 1
                return (handOver, .mustWait(state.nextWaiter))
            }
            if let (consumer, first) = handOver { consumer.resume(returning: first) }
            switch action {
            case .dropped: return false
            case .queued: return true
            case .mustWait(let id):
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let resumeNow = state.withLock { state in
                            if state.count <= capacity || state.terminated || state.finished || Task.isCancelled {
                                return true
                            }
                            state.waiters[id] = continuation
                            return false
                        }
                        if resumeNow { continuation.resume() }
                    }
                } onCancel: {
                    state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
                }
                return true
            }
        }

        func poll(limit: Int) -> [Element] {
            let (elements, ready): ([Element], [CheckedContinuation<Void, Never>]) = state.withLock { state in
                let elements = state.take(limit)
                guard !elements.isEmpty else { return ([], []) }
                var ready: [CheckedContinuation<Void, Never>] = []
                if state.count <= capacity, !state.waiters.isEmpty {
                    ready = Array(state.waiters.values)
                    state.waiters.removeAll()
                }
                return (elements, ready)
            }
            for waiter in ready { waiter.resume() }
            return elements
        }

        func next() async -> Element? {
            let action: NextAction = state.withLock { state in
                if let element = state.pop() {
                    var ready: [CheckedContinuation<Void, Never>] = []
                    if state.count <= capacity, !state.waiters.isEmpty {
                        ready = Array(state.waiters.values)
                        state.waiters.removeAll()
                    }
                    return .element(element, ready)
                }
                return state.finished || state.terminated ? .end : .wait
            }
            switch action {
            case .element(let element, let ready):
                for waiter in ready { waiter.resume() }
                return element
            case .end:
                return nil
            case .wait:
                return await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                        let now: NextNow = state.withLock { state in
                            if let element = state.pop() { return .value(element) }
                            if state.finished || state.terminated || Task.isCancelled { return .value(nil) }
                            state.consumer = continuation
                            return .registered
                        }
                        if case .value(let value) = now { continuation.resume(returning: value) }
                    }
                } onCancel: {
                    terminate()
                }
            }
        }

        func finish() {
            let (consumer, waiters) = state.withLock { state in
                state.finished = true
                let consumer = state.count == 0 ? state.consumer : nil
                if consumer != nil { state.consumer = nil }
                let waiters = Array(state.waiters.values)
                state.waiters.removeAll()
                return (consumer, waiters)
            }
            consumer?.resume(returning: nil)
            for waiter in waiters { waiter.resume() }
        }

        private func terminate() {
            let (consumer, waiters) = state.withLock { state in
                state.terminated = true
                state.items.removeAll()
                state.head = 0
                let consumer = state.consumer
                state.consumer = nil
                let waiters = Array(state.waiters.values)
                state.waiters.removeAll()
                return (consumer, waiters)
            }
            consumer?.resume(returning: nil)
            for waiter in waiters { waiter.resume() }
        }
    }
}
