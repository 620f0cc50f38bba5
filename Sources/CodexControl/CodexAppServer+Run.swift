import BridgeProtocol
import Foundation
import Logging
import Subprocess
import Synchronization

#if canImport(System)
    import System
#else
    import SystemPackage
#endif

extension CodexAppServer {
    /// Spawns `codex app-server`, does the handshake, and pumps messages until the child is gone; returns how
    /// it ended (never throws: a child that cannot start is `.failed`). Call it once. Cancelling the calling
    /// task terminates the child (SIGTERM to its group, SIGKILL after the grace period).
    ///
    /// When it returns, every pending request has failed with `.exited` and ``inbound`` has yielded `.exited`.
    public func run() async -> CodexExitReason {
        let alreadyRan = state.withLock { state in
            guard case .idle = state.phase else { return true }
            state.phase = .running
            return false
        }
        if alreadyRan { return .failed("CodexAppServer.run() was called twice") }
        if let socketPath = options.socketPath { return await runConnected(to: socketPath) }

        var platformOptions = PlatformOptions()
        platformOptions.processGroupID = 0  // own group: signals reach codex's own children too
        platformOptions.teardownSequence = [
            .gracefulShutDown(toProcessGroup: true, allowedDurationToNextStep: options.terminationGracePeriod)
        ]
        var environment: [Environment.Key: String?] = [:]
        for (key, value) in options.environment { environment[Environment.Key(stringLiteral: key)] = value }

        // The arguments carry `-c KEY=VALUE` overrides, which may hold keys: debug only.
        logger.info("starting codex app-server", metadata: ["codex.path": "\(executablePath)"])
        logger.debug("codex app-server arguments", metadata: ["codex.args": "\(options.arguments)"])
        var reason: CodexExitReason
        do {
            let result = try await Subprocess.run(
                .path(FilePath(executablePath)),
                arguments: Arguments(options.arguments),
                environment: .inherit.updating(environment),
                workingDirectory: options.workingDirectory.map { FilePath($0) },
                platformOptions: platformOptions,
                input: .inputWriter,
                output: .sequence,
                error: .sequence
            ) { execution in
                await self.drive(execution, teardown: platformOptions.teardownSequence)
            }
            switch result.terminationStatus {
            case .exited(let code): reason = .exited(code: code)
            case .signaled(let signal): reason = .signaled(signal: signal)
            }
            if let failure = result.closureResult { reason = .failed("\(failure) (\(reason))") }
        } catch {
            reason = .failed("cannot run \(executablePath): \(error)")
        }
        logger.notice("codex app-server ended", metadata: ["codex.exit": "\(reason)"])
        failPending(.exited("codex app-server ended: \(reason)"), phase: .exited(reason))
        outboxWriter.finish()
        if sink == nil { await inbound.send(.exited(reason)) }
        inbound.finish()
        return reason
    }

    /// Runs the writer, stderr logger, handshake and stop watcher beside the stdout reader; returns a failure
    /// message when the session ended for a reason other than the child exiting on its own.
    private func drive(
        _ execution: Execution<CustomWriteInput, SequenceOutput, SequenceOutput>,
        teardown: [TeardownStep]
    ) async -> String? {
        await withTaskGroup(of: Void.self) { group in
            let failure = FailureNote()
            group.addTask { await self.pumpWrites(to: execution.standardInputWriter) }
            group.addTask { await self.logStandardError(execution.standardError) }
            group.addTask {
                for await _ in self.stopRequests {
                    failure.note("terminated")
                    await execution.teardown(using: teardown)
                    return
                }
            }
            group.addTask {
                if let message = await self.handshake() {
                    failure.note(message)
                    await execution.teardown(using: teardown)
                }
            }
            var phase = DeliveryPhase.handshaking(held: [])
            var cache = IdCache()
            do {
                var splitter = LineSplitter(maxLineLength: options.maxLineLength)
                var items: [ReadItem] = []
                for try await buffer in execution.standardOutput {
                    try buffer.withUnsafeBytes { bytes throws(CodexError) in
                        try splitter.append(bytes) { read($0, into: &items, cache: &cache) }
                    }
                    await deliver(items, phase: &phase)
                    items.removeAll(keepingCapacity: true)
                }
                if let rest = splitter.finish() {
                    await handle(lines: [rest], phase: &phase, cache: &cache)
                }
            } catch {
                failure.note("reading codex stdout failed: \(error)")
            }
            // stdout is closed: the child exited (or is broken). Make sure it is gone, refuse new work.
            failPending(.exited("codex app-server closed its output"))
            await execution.teardown(using: teardown)
            group.cancelAll()
            await group.waitForAll()
            return failure.value
        }
    }

    private func pumpWrites(to writer: StandardInputWriter) async {
        for await bytes in outbox {
            do {
                _ = try await writer.write(bytes)
            } catch {
                logger.warning("cannot write to codex stdin", metadata: ["error": "\(error)"])
                return
            }
        }
    }

    private func logStandardError(_ stream: SubprocessOutputSequence) async {
        do {
            for try await line in stream.strings(bufferingPolicy: .maxLineLength(1024 * 1024)) {
                let text = TerminalEscapes.stripped(line)
                if !text.isEmpty { logger.info("\(text)", metadata: ["codex.stderr": "true"]) }
            }
        } catch {
            logger.debug("codex stderr closed", metadata: ["error": "\(error)"])
        }
    }

    /// `initialize` then `initialized`; returns a failure message when that did not work.
    func handshake() async -> String? {
        do {
            let result = try await withCodexTimeout(
                options.handshakeTimeout,
                "codex did not answer initialize within \(options.handshakeTimeout)"
            ) {
                try await self.sendRequest("initialize", params: self.options.initializeParams)
            }
            try notify("initialized")
            logger.info("codex app-server ready", metadata: ["codex.userAgent": "\(result["userAgent"]?.stringValue ?? "unknown")"])
            finishHandshake(.success(result))
            return nil
        } catch {
            let codexError = error as? CodexError ?? .exited("codex handshake failed: \(error)")
            finishHandshake(.failure(codexError))
            if codexError.code == .exited || error is CancellationError { return nil }
            return "codex handshake failed: \(codexError)"
        }
    }
}
