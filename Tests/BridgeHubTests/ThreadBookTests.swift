import Testing

@testable import BridgeHub

@Suite struct ThreadBookTests {
    let policy = TurnPolicy(sandbox: "workspace-write", approvalPolicy: "on-request")

    @Test func recoveredThreadsAreKnownNotLoadedAndTakenOnce() {
        var book = ThreadBook(recovered: ["a", "b"])
        #expect(book["a"]?.loadedGeneration == ThreadBook.notLoaded)
        #expect(!book.isLoaded("a", in: 1))
        #expect(book.takeRecovered() == ["a", "b"])
        #expect(book.takeRecovered().isEmpty)
        #expect(book["b"] != nil)  // still known
    }

    @Test func knowingAThreadLearnsItsDirectoryOnceAndKeepsTheRest() {
        var book = ThreadBook()
        book.know("t", generation: 2)
        #expect(book["t"] == ThreadBook.Entry(cwd: nil, loadedGeneration: 2))
        book.know("t", cwd: "/w", generation: 3)
        #expect(book["t"] == ThreadBook.Entry(cwd: "/w", loadedGeneration: 2))
        book.know("t", cwd: "/elsewhere", generation: 3)
        #expect(book["t"]?.cwd == "/w")
    }

    @Test func loadingSetsGenerationDirectoryAndPolicy() {
        var book = ThreadBook()
        book.know("t", cwd: "/w", generation: ThreadBook.notLoaded)
        book.loaded("t", cwd: nil, generation: 4, policy: policy)
        #expect(book["t"] == ThreadBook.Entry(cwd: "/w", policy: policy, loadedGeneration: 4))
        book.loaded("t", cwd: "/v", generation: 5, policy: nil)
        #expect(book["t"] == ThreadBook.Entry(cwd: "/v", policy: policy, loadedGeneration: 5))
        #expect(book.loaded(in: 5).map(\.threadId) == ["t"])
    }

    @Test func turnsStartAndEndAndADiffIsKept() {
        var book = ThreadBook()
        book.know("t", generation: 1)
        book.observe(EventKind(method: "turn/started"), threadId: "t", turnId: "u1")
        #expect(book.runningTurn(of: "t") == "u1")
        #expect(book.runningCount == 1)
        book.observe(EventKind(method: "turn/completed"), threadId: "t", turnId: "other")  // a child turn's end: u1 still runs
        #expect(book.runningTurn(of: "t") == "u1")
        book.observe(EventKind(method: "turn/diff/updated"), threadId: "t", turnId: "u1", diff: "+x")
        #expect(book["t"]?.lastDiff == "+x")
        book.observe(EventKind(method: "turn/completed"), threadId: "t", turnId: nil)  // no turn id: whatever runs ends
        #expect(book.runningTurn(of: "t") == nil)
        book.observe(EventKind(method: "turn/started"), threadId: "unknown", turnId: "u9")  // not known: nothing recorded
        #expect(book["unknown"] == nil)
    }

    @Test func codexStoppingEndsEveryRunningTurnOnce() {
        var book = ThreadBook()
        for threadId in ["b", "a", "c"] {
            book.know(threadId, generation: 1)
            if threadId != "c" { book.observe(EventKind(method: "turn/started"), threadId: threadId, turnId: "turn-\(threadId)") }
        }
        let stopped = book.stopAll()
        #expect(stopped.map(\.threadId) == ["a", "b"])
        #expect(stopped.map(\.turnId) == ["turn-a", "turn-b"])
        #expect(book.runningCount == 0)
        #expect(book.stopAll().isEmpty)
    }

    @Test func aTurnIsOwnedByTheOtherThreadRunningIt() {
        var book = ThreadBook()
        book.know("parent", generation: 1)
        book.know("child", generation: 1)
        book.observe(EventKind(method: "turn/started"), threadId: "parent", turnId: "root")
        #expect(book.owner(ofTurn: "root", besides: "child") == "parent")
        #expect(book.owner(ofTurn: "root", besides: "parent") == nil)
    }

    @Test func aPolicyMakesAThreadKnownButNotLoaded() {
        var book = ThreadBook()
        book.setPolicy(policy, of: "sub")
        #expect(book["sub"] == ThreadBook.Entry(policy: policy, loadedGeneration: ThreadBook.notLoaded))
    }
}
