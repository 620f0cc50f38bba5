import BridgeOps
import BridgeStore
import CodexControl
import Foundation
import Logging

/// The `serve --shared` parts: the shared app-server's socket, the service that starts one when none runs,
/// the supervisor's connection settings, and the line that tells the user how to attach a terminal.
package struct ServeShared: Sendable {
    /// The socket the shared app-server listens on.
    package let socketPath: String
    /// Starts (and restarts) `codex app-server --listen unix://…` when nobody else runs one.
    package let appServer: SharedAppServer
    /// The supervisor connects to the socket instead of starting a private child; it reconnects quickly (at
    /// most every 3 s) so a restarted app-server is found again soon.
    package let connectionConfiguration: CodexSupervisor.Configuration
    package let logger: Logger

    /// - Parameter workingDirectory: where a started app-server runs (the first root): a TUI attached without
    ///   `-C DIR` starts its threads there, so they are inside the roots and reach the phone.
    package init(socketPath: String?, codex: CodexSupervisor.Configuration, workingDirectory: String?, logger: Logger) {
        let path = socketPath ?? SharedSocket.defaultPath()
        self.socketPath = path
        var child = codex
        child.server.workingDirectory = workingDirectory
        self.appServer = SharedAppServer(socketPath: path, configuration: child, logger: logger)
        var connection = codex
        connection.server.socketPath = path
        connection.maxBackoff = .seconds(3)
        connection.initialBackoff = .milliseconds(250)
        connection.server.handshakeTimeout = .seconds(10)
        self.connectionConfiguration = connection
        self.logger = logger
    }

    /// The command that attaches a terminal's Codex to the same session.
    package var attachCommand: String { SharedSocket.attachCommand(path: socketPath) }

    /// Prints the attach command (stdout, so it shows beside the pairing QR) and logs it.
    package func announce() {
        logger.notice("Shared codex app-server: attach a terminal with `\(attachCommand)`", metadata: ["codex.socket": "\(socketPath)"])
        if isatty(STDOUT_FILENO) == 1 {
            Terminal.write("\nDesk and phone on one session: in a terminal, in your project, run\n\n    \(attachCommand) -C \"$PWD\"\n\n")
        }
    }
}

extension ServeShared {
    /// `doctor`'s finding about the shared app-server, when the running bridge or config.toml uses one.
    package static func doctorFinding(running: ServerRecord?, config: ServeOptions?) -> DoctorFinding? {
        let configured = config?.shared == true
        guard let socket = running?.sharedSocket ?? (configured ? config?.sharedSocket ?? SharedSocket.defaultPath() : nil) else {
            return nil
        }
        let attach = SharedSocket.attachCommand(path: socket)
        if SharedSocket.answers(at: socket) {
            return DoctorFinding(
                check: "shared", severity: .ok, summary: "the shared codex app-server answers at \(socket); attach a terminal: \(attach)")
        }
        if running?.sharedSocket != nil {
            return DoctorFinding(
                check: "shared", severity: .problem,
                summary: "the shared codex app-server does not answer at \(socket): phones get codex_unavailable until it is back",
                fix: "codex app-server --listen unix://\(socket)   (or restart `codex-bridge serve --shared`, which starts one)")
        }
        return DoctorFinding(
            check: "shared", severity: .info,
            summary: "no shared codex app-server at \(socket) yet; `codex-bridge serve --shared` starts one")
    }
}
