"""FAISS HNSW on the same vectors and queries as a bench, for its figures beside ours.

Reads <dir>/data.f32 (n x dim), <dir>/queries.f32 (q x dim), <dir>/exact.i32 (q x 10 ids)
and prints one JSON line: build seconds, search p50/p99 in ms (one query at a time, one
thread, as our searches run), recall@10, index bytes. Settings match ours: M=16,
efConstruction=128, efSearch=96, inner product on unit vectors (= cosine).
"""
import json, os, sys, time
import numpy as np
import faiss

d = sys.argv[1]
dim = int(sys.argv[2])
data = np.fromfile(os.path.join(d, "data.f32"), dtype=np.float32).reshape(-1, dim)
queries = np.fromfile(os.path.join(d, "queries.f32"), dtype=np.float32).reshape(-1, dim)
exact = np.fromfile(os.path.join(d, "exact.i32"), dtype=np.int32).reshape(-1, 10)
faiss.omp_set_num_threads(2)
started = time.perf_counter()
index = faiss.IndexHNSWFlat(dim, 16, faiss.METRIC_INNER_PRODUCT)
index.hnsw.efConstruction = 128
index.add(data)
build = time.perf_counter() - started
index.hnsw.efSearch = 96
faiss.omp_set_num_threads(1)
for q in queries[:20]:
    index.search(q.reshape(1, -1), 10)
lat, recall = [], []
for i, q in enumerate(queries):
    t = time.perf_counter()
    _, ids = index.search(q.reshape(1, -1), 10)
    lat.append((time.perf_counter() - t) * 1000)
    recall.append(len(set(ids[0].tolist()) & set(exact[i].tolist())) / 10)
lat.sort()
print(json.dumps({"build_s": build, "p50_ms": lat[len(lat) // 2], "p99_ms": lat[min(len(lat) - 1, int(len(lat) * 0.99))],
                  "recall": sum(recall) / len(recall), "index_bytes": faiss.serialize_index(index).nbytes}))
