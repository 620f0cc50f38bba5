import BridgeProtocol
import Foundation
import Logging
import NIOCore
import NIOWebSocket

extension CodexAppServer {
    /// The connected-to-a-shared-server counterpart of ``run()``'s child: connects to `codex app-server
    /// --listen unix://PATH` at `socketPath`, does the same `initialize` handshake and pumps the same messages
    /// (one JSON-RPC message per WebSocket text frame) until the server closes the connection or
    /// ``terminate()`` is called. Returns how the connection ended; never throws.
    ///
    /// Everything else (requests, ``inbound``, ``respond(to:result:)``, generations) is the same as for a
    /// child, so a ``CodexSupervisor`` reconnects with backoff exactly as it restarts a child.
    func runConnected(to socketPath: String) async -> CodexExitReason {
        logger.info("connecting to the shared codex app-server", metadata: ["codex.socket": "\(socketPath)"])
        var reason: CodexExitReason
        do {
            let channel = try await UnixWebSocket.connect(
                path: socketPath, maxMessageBytes: options.maxLineLength, timeout: options.handshakeTimeout)
            reason = await drive(channel, socketPath: socketPath)
        } catch let error as CodexError {
            reason = .failed(error.message)
        } catch {
            reason = .failed("cannot connect to \(socketPath): \(error)")
        }
        logger.notice("shared codex app-server connection ended", metadata: ["codex.exit": "\(reason)"])
        failPending(.exited("shared codex app-server connection ended: \(reason)"), phase: .exited(reason))
        outboxWriter.finish()
        if sink == nil { await inbound.send(.exited(reason)) }
        inbound.finish()
        return reason
    }

    private func drive(_ channel: UnixWebSocket.Channel, socketPath: String) async -> CodexExitReason {
        let failure = FailureNote()
        let underlying = channel.channel
        do {
            try await channel.executeThenClose { frames, outbound in
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await bytes in self.outbox {
                            let text = bytes.last == UInt8(ascii: "\n") ? bytes.dropLast() : bytes[...]
                            do {
                                try await outbound.write(UnixWebSocket.textFrame(text))
                            } catch {
                                failure.note("cannot write to the shared codex app-server: \(error)")
                                underlying.close(promise: nil)
                                return
                            }
                        }
                    }
                    group.addTask {
                        for await _ in self.stopRequests {
                            failure.note("terminated")
                            try? await outbound.write(
                                UnixWebSocket.controlFrame(.connectionClose, data: ByteBuffer(integer: UInt16(1000))))
                            underlying.close(promise: nil)
                            return
                        }
                    }
                    group.addTask {
                        if let message = await self.handshake() {
                            failure.note(message)
                            underlying.close(promise: nil)
                        }
                    }
                    var phase = DeliveryPhase.handshaking(held: [])
                    var cache = IdCache()
                    do {
                        for try await frame in frames {
                            switch frame.opcode {
                            case .text:
                                await self.handle(lines: [Data(frame.unmaskedData.readableBytesView)], phase: &phase, cache: &cache)
                            case .ping:
                                try? await outbound.write(UnixWebSocket.controlFrame(.pong, data: frame.unmaskedData))
                            case .connectionClose:
                                failure.note("the shared codex app-server closed the connection")
                                try? await outbound.write(UnixWebSocket.controlFrame(.connectionClose, data: frame.unmaskedData))
                                underlying.close(promise: nil)
                            default:
                                break
                            }
                        }
                    } catch {
                        failure.note("reading from the shared codex app-server failed: \(error)")
                    }
                    self.failPending(.exited("the shared codex app-server connection closed"))
                    group.cancelAll()
                    underlying.close(promise: nil)
                }
            }
        } catch {
            failure.note("the shared codex app-server connection failed: \(error)")
        }
        return .failed(failure.value ?? "the shared codex app-server at \(socketPath) went away")
    }
}
