import { JsonCommand } from '../../json-command.js';
import { memoryFlags, serveMemory } from '../../serve/memory.js';

export default class ServeMemory extends JsonCommand {
  static override description =
    "Run the system memory service (the REST API of Redis's Agent Memory Server: GET /v1/health, GET|PUT|DELETE /v1/working-memory/<session>, POST /v1/long-term-memory/, POST /v1/long-term-memory/search, DELETE /v1/long-term-memory, POST /v1/memory/prompt) over Redis, embedding through the model runtime, until interrupted. " +
    "Flags win over MEMORY_HOST, MEMORY_PORT, KV_URL and OLLAMA_HOST; KV_PREFIX (in a project folder: the project's own, as under `up`; elsewhere fw:), EMBEDDING_MODEL (all-minilm), MEMORY_MAX_BODY_BYTES and MEMORY_INDEX_DIR (.framework/memory, where the in-process index is saved for a fast restart) are read from the environment.";

  static override examples = [
    '<%= config.bin %> serve memory',
    '<%= config.bin %> serve memory --addr 127.0.0.1:8000 --kv-url redis://127.0.0.1:6379 --ollama-host http://127.0.0.1:11434',
    'KV_URL=redis://kv:6379 MEMORY_PORT=8000 <%= config.bin %> serve memory --json',
  ];

  static override enableJsonFlag = true;

  /** `{"event":"listening"}` first, the result when stopped: one JSON document per line. */
  static override jsonLines = true;

  static override flags = memoryFlags;

  async run(): Promise<{ url: string; stopped: true }> {
    const { flags } = await this.parse(ServeMemory);
    return serveMemory(this, flags);
  }
}
