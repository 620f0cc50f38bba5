import BridgeStore
import Dispatch
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Bumps the database's ``StateChanges`` when another process changes serve's state (issue 45 item 4: no
/// pollers). The kernel tells (inotify on the state directory) when a file there is written; a write to the
/// database counts only if its `data_version` moved (this process's own writes leave it alone, so a busy bridge
/// wakes nobody), a write to any other file there (the shared secret's) always counts. Bursts are taken at most
/// every ``pause``; a database write is looked at again ``settle`` later, since the kernel may tell of the write
/// before the other process's commit is visible. Where inotify cannot be had it bumps the signal every second.
package struct StateDirectoryWatch: Service, CustomStringConvertible {
    package static let pause: Duration = .milliseconds(100)
    package static let settle: Duration = .milliseconds(250)

    package let directory: URL
    package let database: BridgeDatabase
    package let logger: Logger

    package init(directory: URL, database: BridgeDatabase, logger: Logger) {
        self.directory = directory
        self.database = database
        self.logger = logger
    }

    package var description: String { "StateDirectoryWatch" }

    package func run() async throws {
        let watch: DirectoryNotifications
        do {
            watch = try DirectoryNotifications(directory: directory)
        } catch {
            logger.warning(
                "Cannot watch the state directory; changes by other processes are looked for every second",
                metadata: ["error": "\(error)"])
            await cancelWhenGracefulShutdown {
                while (try? await Task.sleep(for: .seconds(1))) != nil { database.changes.changed() }
            }
            return
        }
        defer { watch.close() }
        let databaseName = database.url.lastPathComponent
        await cancelWhenGracefulShutdown {
            var version = (try? await database.externalVersion()) ?? 0
            var recheck = false
            while !Task.isCancelled {
                let names = recheck ? await watch.next(within: Self.settle) : await watch.next()
                guard let names else {
                    if Task.isCancelled { return }
                    // The settle time passed with no other write: the second look at the database.
                    recheck = false
                    version = await look(at: version)
                    continue
                }
                let touchedDatabase = names.contains { $0.hasPrefix(databaseName) }
                if names.contains(where: { !$0.hasPrefix(databaseName) }) {
                    database.changes.changed()
                } else if touchedDatabase {
                    version = await look(at: version)
                }
                recheck = touchedDatabase
                try? await Task.sleep(for: Self.pause)
            }
        }
    }

    /// Bumps the signal when the database's `data_version` moved past `version`; returns the version now.
    private func look(at version: Int) async -> Int {
        guard let now = try? await database.externalVersion() else { return version }
        if now != version { database.changes.changed() }
        return now
    }
}

/// The names of the files written, created or moved into one directory, from inotify; what arrives while nobody
/// asks is merged into the next answer.
final class DirectoryNotifications: Sendable {
    private struct State {
        var names: Set<String> = []
        var waiter: CheckedContinuation<Set<String>?, Never>?
        /// The read source is held while nobody waits: the kernel merges a burst of alike events meanwhile, so a
        /// busy bridge's own writes cost no wake-ups.
        var suspended = false
        /// Closed: the source is never suspended again (libdispatch traps on releasing a suspended one).
        var closed = false
    }

    private let descriptor: Int32
    /// libdispatch's sources are thread-safe (resume, suspend and cancel may be called from any thread); the
    /// protocol is not marked Sendable.
    private nonisolated(unsafe) let source: any DispatchSourceRead
    private let state = Mutex(State())

    init(directory: URL) throws {
        let fd = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        guard fd >= 0 else { throw StoreError.io("inotify_init1: \(String(cString: strerror(errno)))") }
        let mask = UInt32(IN_MODIFY) | UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_CREATE)
        guard inotify_add_watch(fd, directory.path, mask) >= 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw StoreError.io("inotify_add_watch \(directory.path): \(reason)")
        }
        descriptor = fd
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: DispatchQueue(label: "codex-bridge.state-watch"))
        source.setEventHandler { [weak self] in self?.drain() }
        source.setCancelHandler { _ = Glibc.close(fd) }
        source.resume()
    }

    /// The names written since the last call; waits for one (nil when the task is cancelled).
    func next() async -> Set<String>? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let (ready, resume) = state.withLock { state -> (Set<String>?, Bool) in
                    if !state.names.isEmpty || Task.isCancelled {
                        defer { state.names.removeAll() }
                        return (state.names, false)
                    }
                    state.waiter = continuation
                    defer { state.suspended = false }
                    return (nil, state.suspended)
                }
                if resume { source.resume() }
                if let ready { continuation.resume(returning: ready.isEmpty ? nil : ready) }
            }
        } onCancel: {
            state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }?.resume(returning: nil)
        }
    }

    /// Like ``next()``, but nil once `limit` passes with nothing written.
    func next(within limit: Duration) async -> Set<String>? {
        await withTaskGroup(of: Set<String>?.self) { group in
            group.addTask { await self.next() }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            // The loser may have taken names (the timer won just as they arrived): keep them for the next call.
            for await late in group { if let late { merge(late) } }
            return first
        }
    }

    func close() {
        // A suspended source must be resumed before it goes (libdispatch traps on releasing one).
        let resume = state.withLock { state in
            defer {
                state.suspended = false
                state.closed = true
            }
            return state.suspended
        }
        if resume { source.resume() }
        source.cancel()
    }

    private func merge(_ names: Set<String>) {
        state.withLock { $0.names.formUnion(names) }
    }

    /// Reads every queued event (the descriptor is non-blocking) and hands their names to a waiter.
    private func drain() {
        var names: Set<String> = []
        let size = 4096
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer, size)
            guard count > 0 else { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let nameStart = offset + MemoryLayout<inotify_event>.size
                if event.len > 0 {
                    let name = String(cString: buffer.advanced(by: nameStart).assumingMemoryBound(to: CChar.self))
                    if !name.isEmpty { names.insert(name) }
                }
                offset = nameStart + Int(event.len)
            }
        }
        let (waiter, taken, suspend) = state.withLock { state -> (CheckedContinuation<Set<String>?, Never>?, Set<String>, Bool) in
            state.names.formUnion(names)
            guard let waiter = state.waiter else {
                guard !state.closed else { return (nil, [], false) }
                defer { state.suspended = true }
                return (nil, [], !state.suspended)
            }
            guard !state.names.isEmpty else { return (nil, [], false) }
            defer {
                state.waiter = nil
                state.names.removeAll()
            }
            return (waiter, state.names, false)
        }
        if suspend { source.suspend() }
        waiter?.resume(returning: taken)
    }
}
