/// A command failed: `main` prints `error: <message>` on one line and exits 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { self.description = message }
}
