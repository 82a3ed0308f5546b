/**
 * Helpers for testing agents: run a task to its end, and a scripted language
 * model that records what it was asked.
 *
 * This file is the complete public surface of `framework_core/testing`: names
 * are exported one by one, and a snapshot test keeps the list deliberate.
 */
export { collectResponses } from './collect-responses.js';
export { ScriptedLanguageModel, type ScriptedLanguageModelOptions, type ScriptedReply, type ScriptedToolCalls } from './scripted-language-model.js';
