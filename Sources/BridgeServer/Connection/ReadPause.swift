/// Whether a connection reads from its socket, without sockets: the rules of ``ReadGate``.
///
/// Reading is paused by holding the pipeline's `read()` (as NIO's `HTTPServerPipelineHandler` does), not by
/// turning `autoRead` off: a `read()` that arrives while paused is remembered and passed on when reading
/// resumes, so the socket is read again exactly once, and not at all meanwhile.
struct ReadPause: Equatable {
    enum State: Equatable {
        /// Reads pass.
        case reading
        /// Reads are held; `readHeld`: one arrived and waits for ``resume()``.
        case paused(readHeld: Bool)
    }

    private(set) var state: State = .reading

    var isPaused: Bool {
        if case .paused = state { return true }
        return false
    }

    /// The pipeline asks to read: true when the read goes on to the channel now.
    mutating func read() -> Bool {
        switch state {
        case .reading:
            return true
        case .paused:
            state = .paused(readHeld: true)
            return false
        }
    }

    /// Stops passing reads on (already paused: nothing changes).
    mutating func pause() {
        if case .reading = state { state = .paused(readHeld: false) }
    }

    /// Passes reads on again: true when a read was held and must be issued now.
    mutating func resume() -> Bool {
        defer { state = .reading }
        return state == .paused(readHeld: true)
    }
}
