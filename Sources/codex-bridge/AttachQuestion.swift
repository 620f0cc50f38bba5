import BridgeProtocol
import Foundation

/// The agent's question at attach's prompt: asks its parts one line at a time and builds the `answerInput`.
///
/// `request_user_input`: per question, a number picks an option, other text is the answer itself. An elicitation
/// form: per field, a value (y/n for a yes/no field, a number for a numeric one, empty skips an optional one); a
/// page to open: y when done. `-` declines the whole question.
struct AttachQuestion {
    enum Step: Equatable {
        /// Show this and read the next line.
        case ask(String)
        /// Send this answer.
        case done(AnswerInput)
    }

    let request: InputRequest
    private var index = 0
    private var answers: [String: [String]] = [:]
    private var content: [String: JSONValue] = [:]

    init(_ request: InputRequest) { self.request = request }

    private var questions: [JSONValue] { request.questions?.arrayValue ?? [] }
    private var fields: [(name: String, spec: JSONValue)] {
        guard case .object(let properties)? = request.schema?["properties"] else { return [] }
        return properties.keys.sorted().map { ($0, properties[$0] ?? .null) }
    }
    private var required: Set<String> { Set(request.schema?["required"]?.arrayValue?.compactMap(\.stringValue) ?? []) }

    /// What to show first.
    var prompt: Step {
        if request.type == "elicitation" {
            let intro = "\(request.serverName ?? "a tool") asks: \(request.message ?? "")"
            if let url = request.url { return .ask("\(intro)\nopen \(url), then y = done, - = decline") }
            guard !fields.isEmpty else { return .ask("\(intro)\ny = accept, - = decline") }
            return .ask(intro + "\n" + fieldPrompt(0))
        }
        guard !questions.isEmpty else { return .done(AnswerInput(requestId: request.requestId, action: .decline)) }
        return .ask(questionPrompt(0))
    }

    /// Takes one typed line; the next prompt (or the same one again, with why), or the finished answer.
    mutating func take(_ line: String) -> Step {
        let text = line.trimmingCharacters(in: .whitespaces)
        if text == "-" { return .done(AnswerInput(requestId: request.requestId, action: .decline)) }
        return request.type == "elicitation" ? takeField(text) : takeAnswer(text)
    }

    private func questionPrompt(_ i: Int) -> String {
        let question = questions[i]
        var lines = ["[\(question["header"]?.stringValue ?? "question")] \(question["question"]?.stringValue ?? "")"]
        for (n, option) in (question["options"]?.arrayValue ?? []).enumerated() {
            let description = option["description"]?.stringValue.map { " - \($0)" } ?? ""
            lines.append("  \(n + 1)) \(option["label"]?.stringValue ?? "")\(description)")
        }
        lines.append(
            question["options"]?.arrayValue?.isEmpty == false ? "a number, or type an answer; - declines" : "type an answer; - declines")
        return lines.joined(separator: "\n")
    }

    private mutating func takeAnswer(_ text: String) -> Step {
        let question = questions[index]
        let options = question["options"]?.arrayValue ?? []
        if let number = Int(text), !options.isEmpty {
            // A number picks an option; one that names none is a slip, not an answer.
            guard (1...options.count).contains(number) else { return .ask("pick 1 to \(options.count)\n" + questionPrompt(index)) }
            answers[question["id"]?.stringValue ?? ""] = [options[number - 1]["label"]?.stringValue ?? ""]
        } else if !text.isEmpty, question["isOther"]?.boolValue != false || options.isEmpty {
            answers[question["id"]?.stringValue ?? ""] = [text]
        } else {
            return .ask("pick 1 to \(options.count)\n" + questionPrompt(index))
        }
        index += 1
        guard index < questions.count else { return .done(AnswerInput(requestId: request.requestId, answers: answers)) }
        return .ask(questionPrompt(index))
    }

    private func fieldPrompt(_ i: Int) -> String {
        let (name, spec) = fields[i]
        let type = spec["type"]?.stringValue ?? "string"
        let choices = spec["enum"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ", ")
        let hint = choices.map { "one of: \($0)" } ?? (type == "boolean" ? "y/n" : type)
        let optional = required.contains(name) ? "" : ", empty skips"
        return "\(spec["title"]?.stringValue ?? name)\(spec["description"]?.stringValue.map { " (\($0))" } ?? "") [\(hint)\(optional)]"
    }

    private mutating func takeField(_ text: String) -> Step {
        if request.url != nil || fields.isEmpty {
            guard text.lowercased().hasPrefix("y") else { return .ask("y = done, - = decline") }
            return .done(AnswerInput(requestId: request.requestId, action: .accept))
        }
        let (name, spec) = fields[index]
        if text.isEmpty {
            guard !required.contains(name) else { return .ask("required\n" + fieldPrompt(index)) }
        } else {
            switch spec["type"]?.stringValue {
            case "boolean":
                guard ["y", "yes", "n", "no", "true", "false"].contains(text.lowercased()) else {
                    return .ask("y or n\n" + fieldPrompt(index))
                }
                content[name] = .bool(["y", "yes", "true"].contains(text.lowercased()))
            case "number", "integer":
                guard let number = Double(text) else { return .ask("a number\n" + fieldPrompt(index)) }
                content[name] = .number(number)
            default:
                if let choices = spec["enum"]?.arrayValue?.compactMap(\.stringValue), !choices.contains(text) {
                    return .ask("one of: \(choices.joined(separator: ", "))\n" + fieldPrompt(index))
                }
                content[name] = .string(text)
            }
        }
        index += 1
        guard index < fields.count else {
            return .done(AnswerInput(requestId: request.requestId, content: .object(content), action: .accept))
        }
        return .ask(fieldPrompt(index))
    }
}
