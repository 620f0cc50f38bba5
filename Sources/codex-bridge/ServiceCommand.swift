import ArgumentParser
import BridgeOps
import BridgeServe
import Foundation

/// `codex-bridge service install|uninstall`: run `serve` as a systemd user service.
struct ServiceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "service",
        abstract: "Install or remove the systemd user service that runs `codex-bridge serve`.",
        subcommands: [Install.self, Uninstall.self]
    )

    struct Install: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write ~/.config/systemd/user/codex-bridge.service and enable it.",
            discussion: "Restart=on-failure. Without a reachable `systemctl --user`, prints the commands to run. "
                + "Tells how to enable lingering so that it runs at boot without a login."
        )

        @OptionGroup var state: StateOptions

        @Flag(help: "Start the service now as well.")
        var now = false

        @Flag(help: "Print the unit and the commands; write and run nothing.")
        var dryRun = false

        @Option(
            name: .customLong("root"),
            help: ArgumentHelp(
                "A directory threads may run in, passed to serve (repeatable). Without it, the current directory after asking on a terminal (never your whole home directory unless given as --root ~).",
                valueName: "dir"))
        var roots: [String] = []

        @Option(name: .customLong("listen"), help: ArgumentHelp("Passed to serve as --listen.", valueName: "host:port"))
        var listen: String?

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            if let listen, ListenAddress(argument: listen) == nil {
                throw CommandFailure("--listen \(listen) is not an address: write HOST:PORT, :PORT or tailscale[:PORT]")
            }
            let roots = try ServiceCommand.roots(given: roots, environment: environment)
            let unit = ServiceCommand.unit(state: state, roots: roots, listen: listen, environment: environment)
            let file = SystemdUnit.directory(environment: environment).appendingPathComponent(SystemdUnit.fileName)
            let commands = SystemdUnit.enableCommands(now: now)
            let user = environment["USER"] ?? environment["LOGNAME"] ?? "$USER"
            if dryRun {
                Terminal.say("Would write \(file.path):\n")
                Terminal.say(unit.render())
                Terminal.say("Then run:\n" + commands.map { "  " + $0.joined(separator: " ") }.joined(separator: "\n"))
                Terminal.say(SystemdUnit.lingerHint(user: user))
                return
            }
            do {
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try unit.render().write(to: file, atomically: true, encoding: .utf8)
            } catch {
                throw CommandFailure("cannot write \(file.path): \(error)")
            }
            Terminal.say("Wrote \(file.path)")
            await ServiceCommand.runOrPrint(
                commands,
                done: now
                    ? "The service is enabled and running."
                    : "The service is enabled; it starts at your next login (or now with: systemctl --user start codex-bridge).")
            Terminal.say(await ServiceCommand.lingerText(user: user))
        }
    }

    struct Uninstall: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop, disable and remove the systemd user service.")

        @OptionGroup var state: StateOptions

        func run() async throws {
            let file = SystemdUnit.directory().appendingPathComponent(SystemdUnit.fileName)
            guard FileManager.default.fileExists(atPath: file.path) else {
                Terminal.say("Not installed (no \(file.path)).")
                return
            }
            if await ServiceCommand.userManagerReachable() {
                for command in SystemdUnit.disableCommands {
                    _ = await ServiceCommand.runner.run(command[0], Array(command.dropFirst()), timeout: .seconds(30))
                }
            } else {
                Terminal.say(
                    "systemctl --user is not reachable here; if the service runs, stop it with:\n  "
                        + SystemdUnit.disableCommands[0].joined(separator: " "))
            }
            do {
                try FileManager.default.removeItem(at: file)
            } catch {
                throw CommandFailure("cannot remove \(file.path): \(error)")
            }
            Terminal.say("Removed \(file.path)")
            if await ServiceCommand.userManagerReachable() {
                _ = await ServiceCommand.runner.run("systemctl", ["--user", "daemon-reload"], timeout: .seconds(30))
            }
        }
    }

    static let runner = CommandRunner()

    /// The unit for this binary: `serve --no-qr` with the state directory, PATH (to find codex) and CODEX_HOME.
    static func unit(state: StateOptions, roots: [String], listen: String?, environment: [String: String]) -> SystemdUnit {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
        var extra: [String] = []
        if let listen { extra += ["--listen", listen] }
        for root in roots { extra += ["--root", absolute(root)] }
        var unitEnvironment: [String: String] = [:]
        for key in ["PATH", "CODEX_HOME"] { if let value = environment[key], !value.isEmpty { unitEnvironment[key] = value } }
        if state.stateDir == nil, let home = environment["CODEX_BRIDGE_HOME"], !home.isEmpty {
            unitEnvironment["CODEX_BRIDGE_HOME"] = absolute(home)
        }
        return SystemdUnit(
            executable: executable,
            arguments: SystemdUnit.serveArguments(stateDirectory: state.stateDir.map(absolute), extra: extra),
            environment: unitEnvironment,
            workingDirectory: environment["HOME"]
        )
    }

    /// The roots the unit passes to serve: each given one, which must be an existing directory; none given: the
    /// current directory, but only when a person at a terminal says yes, and never the home directory itself
    /// (a phone could then run Codex over every file the user has) unless given explicitly.
    /// `~` and `~/…` are the home directory even when no shell expanded them (`--root=~`, a quoted `"~"`), as
    /// the refusal below tells people to write.
    static func roots(given: [String], environment: [String: String], isTerminal: Bool = isatty(STDIN_FILENO) == 1) throws -> [String] {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
        let expanded = given.map { root in
            guard let home, root == "~" || root.hasPrefix("~/") else { return root }
            return home + root.dropFirst()
        }
        for (root, path) in zip(given, expanded) {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw CommandFailure("--root \(root) is not an existing directory")
            }
        }
        if !expanded.isEmpty { return expanded.map(absolute) }
        let current = absolute(FileManager.default.currentDirectoryPath)
        if let home, resolved(home) == resolved(current) {
            throw CommandFailure(
                "not giving phones your whole home directory: pass --root DIR (e.g. --root ~/src), or --root ~ if you mean it")
        }
        guard isTerminal else {
            throw CommandFailure(
                "service install needs --root DIR: the directories phones may run Codex in (no terminal to ask about \(current))")
        }
        Terminal.write("Let phones run Codex in \(current)? [y/N] ")
        guard let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased(), answer == "y" || answer == "yes" else {
            throw CommandFailure("no root chosen: pass --root DIR")
        }
        return [current]
    }

    static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// `path` with links resolved, for comparing directories (the working directory is always resolved; `$HOME`
    /// may name it through a link).
    static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return absolute(path) }
        defer { free(real) }
        return String(cString: real)
    }

    /// Whether `systemctl --user` can talk to a user manager.
    static func userManagerReachable() async -> Bool {
        guard runner.which("systemctl") != nil else { return false }
        return await runner.run("systemctl", ["--user", "show-environment"], timeout: .seconds(5)).succeeded
    }

    /// Runs the commands when a user manager is reachable; otherwise prints them.
    static func runOrPrint(_ commands: [[String]], done: String) async {
        guard await userManagerReachable() else {
            Terminal.say("systemctl --user is not reachable here (no user systemd session); run these in your login session:")
            for command in commands { Terminal.say("  " + command.joined(separator: " ")) }
            return
        }
        for command in commands {
            let outcome = await runner.run(command[0], Array(command.dropFirst()), timeout: .seconds(30))
            guard outcome.succeeded else {
                Terminal.say("`\(command.joined(separator: " "))` failed: \(outcome.output)\nRun the rest yourself:")
                for rest in commands.drop(while: { $0 != command }) { Terminal.say("  " + rest.joined(separator: " ")) }
                return
            }
        }
        Terminal.say(done)
    }

    /// The lingering hint, or a note that it is already on.
    static func lingerText(user: String) async -> String {
        let linger = await runner.run("loginctl", ["show-user", user, "--property=Linger"], timeout: .seconds(5))
        if linger.succeeded, linger.output.contains("Linger=yes") {
            return "Lingering is enabled: the service starts at boot without a login."
        }
        return SystemdUnit.lingerHint(user: user)
    }
}
