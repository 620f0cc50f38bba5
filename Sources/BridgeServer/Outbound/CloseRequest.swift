import NIOCore

/// A close frame the server sends, and what the connection does once it is written.
package struct CloseRequest: Sendable, Equatable {
    /// After the close frame is written.
    package enum Ending: Sendable, Equatable {
        /// Wait for the peer's close frame, but close the socket after this long at most (a server-initiated
        /// close handshake, RFC 6455 §7.1.2).
        case awaitPeer(TimeAmount)
        /// Close the socket as soon as the frame is written (the answer to the peer's close, or a peer that
        /// stopped answering pings).
        case now
        /// Close the socket after this long, without waiting (a client that does not read).
        case after(TimeAmount)
        /// Shut the output, discard whatever still arrives, close when the peer closes or after `linger`
        /// (a protocol error: a peer still sending the rest of an oversized frame would otherwise get a reset
        /// that loses the close frame).
        case halfClose(linger: TimeAmount)
    }

    /// No code: the frame's payload is empty.
    package var code: UInt16?
    package var reason: String
    package var ending: Ending

    package init(code: UInt16?, reason: String = "", ending: Ending) {
        self.code = code
        self.reason = Self.truncated(reason)
        self.ending = ending
    }

    /// A close reason must fit in 123 bytes of UTF-8 (the frame's 125 minus the code).
    package static func truncated(_ reason: String) -> String {
        guard reason.utf8.count > 123 else { return reason }
        var result = ""
        for character in reason {
            if result.utf8.count + String(character).utf8.count > 120 { break }
            result.append(character)
        }
        return result
    }
}
