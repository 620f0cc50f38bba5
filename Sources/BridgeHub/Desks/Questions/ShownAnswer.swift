import BridgeProtocol

/// What an `inputResolved` says the answer was, so that the thread keeps the question with its answer (issue 37
/// item 4): a `userInput` answer without the answers to secret questions (`isSecret`), an accepted form's content.
/// Nothing for a declined or cancelled question.
struct ShownAnswer: Equatable {
    var answers: [String: [String]]?
    var content: JSONValue?

    init(_ answer: AnswerInput, action: InputAction, to request: InputRequest) {
        guard action == .accept else { return }
        if request.type == "elicitation" {
            content = answer.content
            return
        }
        let secret = Set(
            (request.questions?.arrayValue ?? []).compactMap { q in q["isSecret"]?.boolValue == true ? q["id"]?.stringValue : nil })
        let shown = (answer.answers ?? [:]).filter { !secret.contains($0.key) }
        answers = shown.isEmpty ? nil : shown
    }
}
