/// Every request a client may send, by its wire `kind`, and what each one is (``descriptor``): the one table
/// decoding, encoding, the scope check, exactly-once answers, the audit and the gate read. A test checks that
/// BRIDGE.md documents each kind.
public enum RequestKind: String, CaseIterable, Sendable {
    case listThreads, startThread, sendMessage, interrupt, subscribe, unsubscribe, readThread, getDiff, approve, listDirectory
    case listModels, renameThread, archiveThread, unarchiveThread, readFile, usage, pushSubscribe, pushUnsubscribe, presence
    case answerInput, cancelQueued, reorderQueued, editQueued, searchFiles, startReview, forkThread, listSkills
    case gitStatus, gitCommit, gitBranch, gitSwitch, gitPush, gitCommitMessage, gitPullRequest, runCommand, stopCommand, removeWorktree
    case listDevices, setDeviceScopes, renameDevice, requestScopes, revokeDevice, pairDevice, listAudit
    case setGoal, clearGoal, listMachines, addMachine, removeMachine, renameMachine, retryMachine
    case compactThread, deleteThread, searchThreads, updateThreadSettings, approveDeniedAction, listPermissionProfiles, listTools
    case readTurns
    case listPreviews, openPreview, revertThread, listCollaborationModes, accountUsage
    case listVoices, startVoice, stopVoice

    /// What this kind of request is: its payload and answer, scope, exactly-once, audit, gate rule and route.
    public var descriptor: RequestDescriptor {
        switch self {
        // Threads and turns.
        case .listThreads: .read(ListThreads.self, answer: .threads, route: .everyMachine)
        case .searchThreads: .read(SearchThreads.self, answer: .threads)
        case .startThread: .action(StartThread.self, answer: .threadStarted, scope: .operate, gate: .newThread)
        case .sendMessage: .action(SendMessage.self, answer: .accepted, scope: .operate)
        case .interrupt: .action(ThreadRef.self, answer: .accepted, scope: .operate)
        case .cancelQueued: .action(CancelQueued.self, answer: .accepted, scope: .operate)
        case .reorderQueued: .action(ReorderQueued.self, answer: .accepted, scope: .operate)
        // Not exactly-once: in the first form (still read) the frame's `id` is the message's `queuedId`, the same for each edit
        // of it; and an edit done twice leaves what one leaves (the last text wins).
        case .editQueued: .change(EditQueued.self, answer: .accepted, scope: .operate, gate: .thread)
        case .subscribe: .read(Subscribe.self, answer: .subscribed, gate: .thread, route: .relayedHere)
        case .unsubscribe: .read(ThreadRef.self, answer: .unsubscribed, route: .here)
        case .readThread: .read(ReadThread.self, answer: .thread, gate: .thread)
        case .readTurns: .read(ReadTurns.self, answer: .turns, gate: .thread)
        case .getDiff: .read(ThreadRef.self, answer: .diff, gate: .thread)
        case .renameThread: .change(RenameThread.self, answer: .accepted, scope: .operate, gate: .thread)
        case .archiveThread, .unarchiveThread: .change(ThreadRef.self, answer: .accepted, scope: .operate, gate: .thread)
        case .startReview: .action(StartReview.self, answer: .accepted, scope: .operate)
        case .forkThread: .action(ForkThread.self, answer: .threadForked, scope: .operate)
        case .setGoal: .action(SetGoal.self, answer: .goal, scope: .operate)
        case .clearGoal, .compactThread, .deleteThread: .action(ThreadRef.self, answer: .accepted, scope: .operate)
        case .revertThread: .action(RevertThread.self, answer: .accepted, scope: .operate)
        case .updateThreadSettings: .action(UpdateThreadSettings.self, answer: .accepted, scope: .operate, gate: .settings)
        case .listPermissionProfiles: .read(ListPermissionProfiles.self, answer: .permissionProfiles, gate: .thread)
        // Approvals and questions.
        case .approve: .action(Approve.self, answer: .accepted, scope: .approve, gate: .approval)
        case .answerInput: .action(AnswerInput.self, answer: .accepted, scope: .approve, gate: .question)
        case .approveDeniedAction: .action(ApproveDeniedAction.self, answer: .accepted, scope: .approve)
        // The workstation: directories, files, models, skills, usage.
        case .listDirectory: .read(ListDirectory.self, answer: .directory, gate: .directory)
        case .readFile: .read(ReadFile.self, answer: .file, gate: .file)
        case .searchFiles: .read(SearchFiles.self, answer: .files, gate: .thread)
        case .listSkills: .read(ListSkills.self, answer: .skills, gate: .thread)
        case .listModels: .read(ListModels.self, answer: .models)
        case .listTools: .read(ListTools.self, answer: .tools, gate: .thread)
        case .usage: .read(UsageRequest.self, answer: .usage)
        case .accountUsage: .read(AccountUsageRequest.self, answer: .accountUsage)
        case .listCollaborationModes: .read(ListCollaborationModes.self, answer: .collaborationModes)
        // The workstation's dev servers, on the preview origin.
        case .listPreviews: .change(ThreadRef.self, answer: .previews, scope: .operate, gate: .thread)
        case .openPreview: .change(OpenPreview.self, answer: .preview, scope: .operate, gate: .thread, route: .notForwarded)
        // Voice (Codex's realtime).
        case .listVoices: .read(ListVoices.self, answer: .voices)
        case .startVoice: .action(StartVoice.self, answer: .voiceStarted, scope: .operate)
        case .stopVoice: .change(ThreadRef.self, answer: .accepted, scope: .operate, gate: .thread)
        // Notifications and presence.
        case .pushSubscribe: .read(PushSubscribe.self, answer: .pushSubscribed)
        case .pushUnsubscribe: .read(PushUnsubscribe.self, answer: .accepted)
        case .presence: .read(Presence.self, answer: .accepted)
        // Git, worktrees and commands.
        case .gitStatus: .read(ThreadRef.self, answer: .gitStatus, gate: .thread)
        case .gitCommit: .action(GitCommit.self, answer: .gitCommitted, scope: .operate)
        case .gitBranch: .action(GitBranch.self, answer: .gitBranched, scope: .operate)
        case .gitSwitch: .action(GitSwitch.self, answer: .gitBranched, scope: .operate)
        case .gitCommitMessage: .change(ThreadRef.self, answer: .commitMessage, scope: .operate, gate: .thread)
        case .gitPush: .action(GitPush.self, answer: .gitPushed, scope: .publish)
        case .gitPullRequest: .action(GitPullRequest.self, answer: .pullRequest, scope: .publish)
        case .removeWorktree: .action(RemoveWorktree.self, answer: .accepted, scope: .operate)
        case .runCommand: .action(RunCommand.self, answer: .accepted, scope: .run)
        case .stopCommand: .action(StopCommand.self, answer: .accepted, scope: .run)
        // Devices and the audit (the admin's); asking for more scopes (any device's).
        case .listDevices: RequestDescriptor(ListDevices.self, answer: .devices, scope: .admin)
        case .listAudit: RequestDescriptor(ListAudit.self, answer: .audit, scope: .admin)
        case .setDeviceScopes: .change(SetDeviceScopes.self, answer: .device, scope: .admin)
        case .renameDevice: .change(RenameDevice.self, answer: .device, scope: .admin)
        case .revokeDevice: .change(RevokeDevice.self, answer: .device, scope: .admin)
        case .pairDevice: .change(PairDevice.self, answer: .pairingCode, scope: .admin)
        case .requestScopes: .change(RequestScopes.self, answer: .scopeRequest, scope: .observe)
        // Linked machines (the fleet layer answers these).
        case .listMachines: RequestDescriptor(ListMachines.self, answer: .machines, scope: .admin, route: .fleet)
        case .addMachine: .change(AddMachine.self, answer: .machines, scope: .admin, route: .fleet)
        case .removeMachine: .change(RemoveMachine.self, answer: .machines, scope: .admin, route: .fleet)
        case .renameMachine: .change(RenameMachine.self, answer: .machines, scope: .admin, route: .fleet)
        // Any fleet device's: the link to an offline machine tries again now (a phone's Try now).
        case .retryMachine: .read(RetryMachine.self, answer: .accepted, route: .fleet)
        }
    }

    /// The scope a device needs for this kind of request (``RequestDescriptor/scope``). The HTTP routes name
    /// theirs: uploads `operate`, downloads and metrics `observe`, notification actions `approve`.
    public var scope: Scope { descriptor.scope }
}
