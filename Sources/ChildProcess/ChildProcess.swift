import Foundation
import Subprocess

#if canImport(System)
    import System
#else
    import SystemPackage
#endif

/// Runs a short external program to completion with bounded output and time: the one way the bridge runs a
/// helper program (git, tailscale, …). The child gets its own process group; at the deadline, on
/// cancellation or when its output passes the limit, the whole group is terminated (SIGTERM, then SIGKILL).
public enum ChildProcess {
    /// What a finished child left.
    public struct Outcome: Sendable, Hashable {
        /// The exit status; nil when it was killed by a signal (including at the deadline or the limit).
        public var status: Int32?
        /// Standard output, at most the limit's bytes.
        public var output: [UInt8]
        /// Whether the output passed the limit (and the child was stopped there).
        public var truncated: Bool
        /// Whether the child was stopped at the deadline.
        public var timedOut: Bool

        /// Exit status 0, complete output.
        public var succeeded: Bool { status == 0 && !truncated && !timedOut }
        /// The output as UTF-8 text (invalid sequences replaced).
        public var text: String { String(decoding: output, as: UTF8.self) }
    }

    /// A program that could not be started.
    public struct LaunchError: Error, CustomStringConvertible {
        public let executable: String
        public let reason: String
        public var description: String { "cannot run \(executable): \(reason)" }
    }

    /// Runs `executable` (an absolute path: nothing is looked up on PATH here) with exactly `environment`
    /// (nothing is inherited) and standard input from /dev/null, or `standardInput`'s bytes. Standard error is
    /// discarded, or with `includeStandardError` joined to the output (as `2>&1` would).
    public static func run(
        _ executable: String,
        arguments: [String],
        environment: [String: String],
        workingDirectory: String? = nil,
        standardInput: [UInt8]? = nil,
        includeStandardError: Bool = false,
        outputLimit: Int = 1 << 20,
        timeout: Duration = .seconds(10)
    ) async throws -> Outcome {
        let request = Request(
            executable: executable, arguments: arguments, environment: environment, workingDirectory: workingDirectory,
            standardInput: standardInput, outputLimit: outputLimit, timeout: timeout)
        return includeStandardError ? try await request.run(error: .combinedWithOutput) : try await request.run(error: .discarded)
    }

    /// What ``run(_:arguments:environment:workingDirectory:includeStandardError:outputLimit:timeout:)`` runs.
    private struct Request {
        let executable: String
        let arguments: [String]
        let environment: [String: String]
        let workingDirectory: String?
        let standardInput: [UInt8]?
        let outputLimit: Int
        let timeout: Duration

        func run<ErrorOutput: ErrorOutputProtocol>(error: ErrorOutput) async throws -> Outcome {
            if let standardInput { return try await run(input: .array(standardInput), error: error) }
            return try await run(input: .none, error: error)
        }

        func run<Input: InputProtocol, ErrorOutput: ErrorOutputProtocol>(input: Input, error: ErrorOutput) async throws -> Outcome {
            var options = PlatformOptions()
            options.processGroupID = 0
            options.teardownSequence = [.gracefulShutDown(toProcessGroup: true, allowedDurationToNextStep: .milliseconds(500))]
            let teardown = options.teardownSequence
            var custom: [Environment.Key: String] = [:]
            for (key, value) in environment { custom[Environment.Key(stringLiteral: key)] = value }
            let deadline = ContinuousClock.now + timeout
            do {
                let result = try await Subprocess.run(
                    .path(FilePath(executable)),
                    arguments: Arguments(arguments),
                    environment: .custom(custom),
                    workingDirectory: workingDirectory.map { FilePath($0) },
                    platformOptions: options,
                    input: input,
                    output: .sequence,
                    error: error
                ) { execution -> (output: [UInt8], truncated: Bool, timedOut: Bool) in
                    try await withThrowingTaskGroup(of: (output: [UInt8], truncated: Bool, timedOut: Bool)?.self) { group in
                        group.addTask {
                            var output: [UInt8] = []
                            for try await buffer in execution.standardOutput {
                                buffer.withUnsafeBytes { bytes in output.append(contentsOf: bytes.prefix(outputLimit + 1 - output.count)) }
                                if output.count > outputLimit {
                                    await execution.teardown(using: teardown)
                                    return (Array(output.prefix(outputLimit)), true, false)
                                }
                            }
                            return (output, false, false)
                        }
                        group.addTask {
                            try? await Task.sleep(until: deadline)
                            guard !Task.isCancelled else { return nil }
                            await execution.teardown(using: teardown)
                            return ([], false, true)
                        }
                        var outcome: (output: [UInt8], truncated: Bool, timedOut: Bool) = ([], false, false)
                        for try await next in group {
                            guard let next else { continue }
                            outcome = next
                            group.cancelAll()
                            break
                        }
                        return outcome
                    }
                }
                var status: Int32?
                if case .exited(let code) = result.terminationStatus { status = code }
                let (output, truncated, stoppedAtDeadline) = result.closureResult
                // The deadline's teardown also ends the output, so the reader may be the one that reports: a
                // child killed by a signal once the deadline has passed was stopped there.
                let timedOut = stoppedAtDeadline || (!truncated && status == nil && ContinuousClock.now >= deadline)
                return Outcome(status: status, output: output, truncated: truncated, timedOut: timedOut)
            } catch let error as SubprocessError {
                throw LaunchError(executable: executable, reason: "\(error)")
            }
        }
    }

    /// The absolute path of `name` in the directories of `path` (a `PATH` value) that is an executable regular
    /// file; nil when there is none.
    public static func which(_ name: String, path: String?) -> String? {
        for directory in (path ?? "").split(separator: ":") where directory.hasPrefix("/") {
            let candidate = "\(directory)/\(name)"
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
                FileManager.default.isExecutableFile(atPath: candidate)
            {
                return candidate
            }
        }
        return nil
    }
}
