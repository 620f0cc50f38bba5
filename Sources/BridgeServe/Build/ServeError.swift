/// Why `serve` could not start: the step of ``buildBridge(_:paths:logger:metrics:)`` that failed, a code a test
/// or a script can match, and one line for the user (`main` prints it as `error: <message>` and exits 1).
package struct ServeError: Error, CustomStringConvertible, Equatable {
    /// The steps, in the order they run.
    package enum Step: String, Sendable {
        case state, tls, hub, services, server
    }

    package enum Code: String, Sendable {
        /// The listen or preview port, or a preview origin's, is taken.
        case portInUse = "port_in_use"
        /// The preview origins' ports would run past 65535, or include the listen port.
        case previewPorts = "preview_ports"
        /// `--codex PATH` cannot be run.
        case codexUnavailable = "codex_unavailable"
        /// The state directory, a secret in it, the database or the uploads directory cannot be prepared.
        case stateDirectory = "state_directory"
        /// A `--root` is not a usable directory.
        case roots
        /// The listen address cannot be resolved (`--listen tailscale` without Tailscale) or the identity read.
        case listen
        /// The certificate, its key, the workstation's CA or Tailscale's certificate.
        case tls
        /// The push key or a `--notify-url`.
        case push
        /// The event journal cannot be opened.
        case journal
    }

    package let step: Step
    package let code: Code
    package let message: String

    package init(_ step: Step, _ code: Code, _ message: String) {
        self.step = step
        self.code = code
        self.message = message
    }

    package var description: String { message }
}
