"""FAISS HNSW on the same vectors and queries as a bench, at the recall ours reached.

Reads <dir>/data.f32 (n x dim), <dir>/queries.f32 (q x dim), <dir>/exact.i32 (q x 10 ids);
argv: dir dim target_recall M[,M...]. For each M (efConstruction 128, inner product on unit
vectors = cosine) it finds the smallest efSearch whose recall@10 reaches target_recall
(FAISS at equal recall: a larger efSearch would only make it slower), then times that
setting one query at a time on one thread, as our searches run (and, with FAISS_GAP_MS, each
after that long asleep: p50_gap_ms). Prints one JSON line:
{"configs": [{M, ef, recall, build_s, p50_ms, p99_ms, index_bytes[, p50_gap_ms]}, ...]} (ef null when
no efSearch up to 1024 reaches the target; then the figures are at 1024).
"""
import json, os, sys, time
import numpy as np
import faiss

d = sys.argv[1]
dim = int(sys.argv[2])
target = float(sys.argv[3])
ms = [int(m) for m in sys.argv[4].split(",")]
data = np.fromfile(os.path.join(d, "data.f32"), dtype=np.float32).reshape(-1, dim)
queries = np.fromfile(os.path.join(d, "queries.f32"), dtype=np.float32).reshape(-1, dim)
exact = np.fromfile(os.path.join(d, "exact.i32"), dtype=np.int32).reshape(-1, 10)
# FAISS_GAP_MS: also time each search after that long asleep (p50_gap_ms), as a search behind HTTP runs.
GAP_S = float(os.environ.get("FAISS_GAP_MS", "0")) / 1000
EF_STEPS = [8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 256, 384, 512, 768, 1024]


def recall_at(index):
    _, ids = index.search(queries, 10)
    return float(np.mean([len(set(ids[i].tolist()) & set(exact[i].tolist())) / 10 for i in range(len(queries))]))


configs = []
for m in ms:
    faiss.omp_set_num_threads(2)
    started = time.perf_counter()
    index = faiss.IndexHNSWFlat(dim, m, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = 128
    index.add(data)
    build = time.perf_counter() - started
    faiss.omp_set_num_threads(1)
    chosen, recall = None, 0.0
    for ef in EF_STEPS:
        index.hnsw.efSearch = ef
        recall = recall_at(index)
        if recall >= target:
            chosen = ef
            break
    index.hnsw.efSearch = chosen or EF_STEPS[-1]
    for q in queries[:20]:
        index.search(q.reshape(1, -1), 10)
    lat = []
    for q in queries:
        t = time.perf_counter()
        index.search(q.reshape(1, -1), 10)
        lat.append((time.perf_counter() - t) * 1000)
    lat.sort()
    config = {"M": m, "ef": chosen, "recall": recall, "build_s": build, "p50_ms": lat[len(lat) // 2],
              "p99_ms": lat[min(len(lat) - 1, int(len(lat) * 0.99))], "index_bytes": faiss.serialize_index(index).nbytes}
    if GAP_S > 0:
        # Each search after the thread slept GAP_S, as a server's search follows a pause for the network round trip.
        gapped = []
        for q in queries:
            time.sleep(GAP_S)
            t = time.perf_counter()
            index.search(q.reshape(1, -1), 10)
            gapped.append((time.perf_counter() - t) * 1000)
        gapped.sort()
        config["p50_gap_ms"] = gapped[len(gapped) // 2]
    configs.append(config)
print(json.dumps({"configs": configs}))
