import ArgumentParser
import BridgeOps
import BridgeServe
import BridgeStore
import CodexControl
import Foundation
import Logging

/// `codex-bridge doctor`: checks what the bridge needs and prints the fix for each problem.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check codex, avahi, tailscale, the port, the state directory and the sandbox tools.",
        discussion: "Each problem is printed with the command that fixes it. Exits 1 if there is any problem, 0 otherwise."
    )

    @OptionGroup var state: StateOptions

    @Option(help: ArgumentHelp("Path of the codex binary to check (default: PATH, then the openai-codex-cli-bin venv).", valueName: "path"))
    var codex: String?

    @Option(help: ArgumentHelp("The port serve listens on, 0 to 65535 (default: config.toml's, else 9099).", valueName: "port"))
    var port: Int?

    @Flag(help: "Print the findings as a JSON array.")
    var json = false

    func validate() throws {
        // As serve's --listen: 0 stands for "any free port".
        if let port, !(0...65535).contains(port) { throw ValidationError("--port must be between 0 and 65535, not \(port)") }
    }

    func run() async throws {
        let paths = state.paths
        var codexPath: String?
        var codexError: String?
        // The settings serve would use: config.toml's codex and port unless given here.
        let config = try? ServeConfigFile.load(paths.configFile)
        do {
            let locator = CodexLocator(explicitPath: codex, configuredPath: config?.codex, searchRoots: CodexLocator.checkoutRoots)
            codexPath = try await locator.locate()
        } catch {
            codexError = "\(error)"
        }
        let running = ServerRecord.readRunning(paths: paths)
        let input = Doctor.Input(
            codexPath: codexPath, codexError: codexError, port: port ?? config?.listen?.port ?? 9099, runningBridgePort: running?.port,
            stateDirectory: paths.stateDirectory.path)
        var logger = Logger(label: "codex-bridge.doctor")
        logger.logLevel = .error
        let tlsFinding = await ServeTLS.doctorFinding(paths: paths, running: running, logger: logger)
        let findings =
            await Doctor(probe: SystemProbe()).run(input) + [tlsFinding]
            + (ServeShared.doctorFinding(running: running, config: config).map { [$0] } ?? [])
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            Terminal.say(String(decoding: try encoder.encode(findings), as: UTF8.self))
        } else {
            for finding in findings { Terminal.say(finding.text) }
            let problems = findings.filter { $0.severity == .problem }.count
            Terminal.say(problems == 0 ? "\nNo problems found." : "\n\(problems) problem\(problems == 1 ? "" : "s") found.")
        }
        if Doctor.hasProblems(findings) { throw ExitCode.failure }
    }
}
