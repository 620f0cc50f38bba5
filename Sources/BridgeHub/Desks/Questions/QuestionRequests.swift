import BridgeProtocol
import CodexControl
import Foundation
import Logging

/// The question desk's own request: `answerInput` checks the answer against the question (``QuestionDesk``), sends
/// it to Codex, and tells everyone (`inputResolved`, journaled, with who answered). Asking and withdrawing are
/// Codex's side (ThreadHub+Questions).
struct QuestionRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.onHub(.answerInput) { (hub, answer: AnswerInput, context) in
            let deviceId = context.session.principal.deviceId
            let deviceName = await hub.deviceName(deviceId)
            // The name's lookup suspended: the desk says whether the question is still open.
            guard let pending = hub.desks.questions[answer.requestId] else { throw QuestionDesk.notPending(answer.requestId) }
            let action = answer.action ?? .accept
            let result = try QuestionDesk.codexAnswer(answer, action: action, to: pending.request)
            hub.desks.questions.answered(answer.requestId)
            do {
                try hub.codex.respond(to: pending.codexId, result: result)
            } catch {
                throw HubError(.inputNotPending, "question \(answer.requestId) can no longer be answered: codex restarted")
            }
            let threadId = pending.request.threadId
            let shown = ShownAnswer(answer, action: action, to: pending.request)
            let at = Int64(Date().timeIntervalSince1970)
            hub.publish(threadId: threadId) { seq in
                .inputResolved(
                    InputResolved(
                        seq: seq, requestId: answer.requestId, threadId: threadId, action: action, deviceId: deviceId,
                        deviceName: deviceName, at: at, answers: shown.answers, content: shown.content))
            }
            context.session.logger.info(
                "Input answered", metadata: ["bridge.input.id": "\(answer.requestId)", "bridge.input.action": "\(action.rawValue)"])
            return .accepted(Accepted(threadId: threadId, requestId: answer.requestId))
        }
    }
}
