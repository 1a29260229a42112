//===- RegionFormation.cpp - cluster ops into hwagent.region --------------===//
//
// Clustering works on the DAG whose nodes are the ops of one block (constants
// and tensor.empty excluded: they are cloned into each region that uses them)
// and whose edges are def-use edges plus ordering edges between ops with
// memory effects. Clusters are contracted nodes of that DAG; the quotient
// graph must stay acyclic, which is the same as every cluster being convex.
//
// A topological order of the clusters is kept up to date across merges (a
// Pearce-Kelly style local reordering): a path from cluster A to cluster B
// can only pass clusters ordered between them, so the check before a merge
// and the reordering after it only touch that window.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Transforms/RegionFormation.h"

#include "HwAgent/Analysis/Utils.h"
#include "HwAgent/Analysis/WorkloadProfile.h"
#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::hwagent;

namespace {
struct GranularityWords {
  const char *name;
  const char *description;
};
/// In the order of kAllGranularities (a granularity without a row does not
/// compile).
constexpr std::array<GranularityWords, kAllGranularities.size()>
    kGranularityWords = {{
        {"per-op", "one region per op"},
        {"fused", "anchors with their elementwise neighbours (default)"},
        {"per-layer", "one region per contraction and what follows it"},
    }};
static_assert(kGranularityWords.back().name != nullptr,
              "a name per granularity");
} // namespace

const char *hwagent::granularityName(Granularity granularity) {
  return kGranularityWords[static_cast<unsigned>(granularity)].name;
}

const char *hwagent::granularityDescription(Granularity granularity) {
  return kGranularityWords[static_cast<unsigned>(granularity)].description;
}

std::optional<Granularity> hwagent::parseGranularity(StringRef name) {
  for (Granularity g : kAllGranularities)
    if (name == granularityName(g))
      return g;
  return std::nullopt;
}

namespace {

/// How an op takes part in clustering.
enum class Role {
  /// Never shares a region: loops, calls, opaque or effectful ops.
  Standalone,
  /// conv, depthwise, matmul: starts a layer.
  Contraction,
  /// pooling, reduction, normalization with a reduction: its own region in
  /// `fused` mode.
  Anchor,
  /// elementwise and data movement: joins its neighbours.
  Fusible,
};

class BlockClustering {
public:
  BlockClustering(Block &block, WorkloadProfiler &profiler,
                  const RegionFormationOptions &options)
      : block(block), profiler(profiler), options(options) {}

  /// The def-use DAG of the block's ops and every node its own cluster.
  void buildGraph();
  void cluster();
  LogicalResult materialize(int64_t &nextId, RegionFormationStats &stats);

private:
  /// The ops that take part, in block order, and their roles.
  void collectNodes();
  /// Data edges between nodes and the order of effectful ones.
  void addEdges();
  /// Every node a cluster of its own.
  void initClusters();
  Role classify(Operation *op, const OpWork &work, bool effectFree);
  unsigned find(unsigned node);
  /// Merges the clusters of `a` and `b` when that keeps every cluster convex
  /// and respects the options; returns whether it did.
  bool tryMerge(unsigned a, unsigned b);
  void fuseDataMovementProducers();
  void fuseConsumers();
  void fuseIntoLayers();

  Block &block;
  WorkloadProfiler &profiler;
  const RegionFormationOptions &options;

  // Graph over nodes (indices follow block order).
  SmallVector<Operation *> nodes;
  llvm::DenseMap<Operation *, unsigned> nodeOf;
  SmallVector<Role> roles;
  SmallVector<bool> movesDataOnly, effectFree;
  SmallVector<SmallVector<unsigned, 4>> succs, dataPreds, dataSuccs;

  // Union-find over nodes; per-root data is valid for roots only.
  SmallVector<unsigned> parent;
  SmallVector<SmallVector<unsigned, 1>> members;
  SmallVector<unsigned> maxIndex;
  SmallVector<bool> hasAnchor, hasContraction, standalone;

  // Topological order of clusters: position of each root, and the root at
  // each position (-1 once a merge frees it).
  SmallVector<unsigned> position;
  SmallVector<int> rootAt;

  // Visit stamps per root for the path search (no clearing between queries).
  SmallVector<unsigned> visitedStamp;
  unsigned stamp = 0;
};
} // namespace

Role BlockClustering::classify(Operation *op, const OpWork &work,
                               bool effectFree) {
  if (!op->isRegistered() || isa<CallOpInterface, RegionOp>(op) || !effectFree)
    return Role::Standalone;
  if (work.opaque)
    return Role::Standalone;
  switch (work.kind) {
  case OpKind::conv:
  case OpKind::depthwise:
  case OpKind::matmul:
    return Role::Contraction;
  case OpKind::pooling:
  case OpKind::reduction:
    return Role::Anchor;
  case OpKind::normalization:
    // An elementwise normalization (inference batch norm) fuses like any
    // elementwise op; one that reduces is an anchor.
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
      return linalgOp.getNumReductionLoops() == 0 ? Role::Fusible
                                                  : Role::Anchor;
    return Role::Anchor;
  case OpKind::elementwise:
  case OpKind::data_movement:
    return Role::Fusible;
  case OpKind::control_flow:
  case OpKind::opaque:
    return Role::Standalone;
  }
  return Role::Standalone;
}

/// Host-side bookkeeping: scalar flag and index arithmetic and checks such as
/// torch-mlir's `cf.assert %true, "training is not supported"` (no tensors,
/// no bodies, not a call). It stays between regions instead of becoming a
/// region that a backend would have to dispatch.
static bool isHostOp(Operation &op) {
  auto isShaped = [](Type type) { return isa<ShapedType>(type); };
  return op.isRegistered() && op.getNumRegions() == 0 &&
         !isa<CallOpInterface>(op) &&
         llvm::none_of(op.getOperandTypes(), isShaped) &&
         llvm::none_of(op.getResultTypes(), isShaped);
}

void BlockClustering::buildGraph() {
  collectNodes();
  addEdges();
  initClusters();
}

void BlockClustering::collectNodes() {
  // Ops left out of the graph that read (maybe through each other) a value
  // a node computes.
  llvm::SmallPtrSet<Operation *, 16> downstreamOfNodes;
  auto readsNodes = [&](Operation &op) {
    return llvm::any_of(op.getOperands(), [&](Value value) {
      Operation *def = value.getDefiningOp();
      return def && def->getBlock() == &block &&
             (nodeOf.count(def) || downstreamOfNodes.contains(def));
    });
  };
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue;
    bool leaf = isCloneableLeaf(&op) || op.hasTrait<OpTrait::ConstantLike>();
    if (leaf || isHostOp(op)) {
      // A host-side op that reads a region's value (a size computed from a
      // result) takes part in clustering: left between regions, a cluster
      // could both feed it and read it, a cycle no order resolves. Leaves
      // are cloned into their users, which then read their operands.
      if (!readsNodes(op)) // the common case: flags, constants, checks
        continue;
      if (leaf) {
        downstreamOfNodes.insert(&op);
        continue;
      }
    }
    nodeOf[&op] = nodes.size();
    nodes.push_back(&op);
  }
  roles.reserve(nodes.size());
  effectFree.reserve(nodes.size());
  for (Operation *op : nodes) {
    OpWork work = profiler.getOpWork(op);
    effectFree.push_back(isMemoryEffectFree(op));
    roles.push_back(classify(op, work, effectFree.back()));
    movesDataOnly.push_back(!work.opaque && work.flops == 0 &&
                            (work.kind == OpKind::data_movement ||
                             work.kind == OpKind::elementwise));
  }
}

void BlockClustering::addEdges() {
  unsigned n = nodes.size();
  succs.resize(n);
  dataPreds.resize(n);
  dataSuccs.resize(n);
  // Producers of a value: the node defining it, or the producers of a cloned
  // leaf's operands (tensor.empty of a dynamic size).
  std::function<void(Value, SmallVectorImpl<unsigned> &)> producersOf =
      [&](Value value, SmallVectorImpl<unsigned> &out) {
        Operation *def = value.getDefiningOp();
        if (!def || def->getBlock() != &block)
          return;
        if (auto it = nodeOf.find(def); it != nodeOf.end()) {
          out.push_back(it->second);
          return;
        }
        for (Value operand : def->getOperands())
          producersOf(operand, out);
      };

  std::optional<unsigned> lastEffectful;
  for (unsigned u = 0; u < n; ++u) {
    SmallVector<unsigned, 8> preds;
    forEachInput(nodes[u], [&](Value v) { producersOf(v, preds); });
    llvm::sort(preds);
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
    for (unsigned p : preds) {
      if (p == u)
        continue;
      dataPreds[u].push_back(p);
      dataSuccs[p].push_back(u);
      succs[p].push_back(u);
    }
    if (!effectFree[u]) {
      if (lastEffectful && !llvm::is_contained(preds, *lastEffectful))
        succs[*lastEffectful].push_back(u);
      lastEffectful = u;
    }
  }
}

void BlockClustering::initClusters() {
  unsigned n = nodes.size();
  parent.resize(n);
  members.resize(n);
  maxIndex.resize(n);
  hasAnchor.resize(n);
  hasContraction.resize(n);
  standalone.resize(n);
  visitedStamp.assign(n, 0);
  position.resize(n);
  rootAt.resize(n);
  for (unsigned u = 0; u < n; ++u) {
    position[u] = u;
    rootAt[u] = u;
    parent[u] = u;
    members[u] = {u};
    maxIndex[u] = u;
    hasContraction[u] = roles[u] == Role::Contraction;
    hasAnchor[u] = hasContraction[u] || roles[u] == Role::Anchor;
    standalone[u] = roles[u] == Role::Standalone;
  }
}

unsigned BlockClustering::find(unsigned node) {
  while (parent[node] != node) {
    parent[node] = parent[parent[node]];
    node = parent[node];
  }
  return node;
}

bool BlockClustering::tryMerge(unsigned a, unsigned b) {
  unsigned ra = find(a), rb = find(b);
  if (ra == rb || standalone[ra] || standalone[rb])
    return false;
  if (options.maxOpsPerRegion &&
      members[ra].size() + members[rb].size() > options.maxOpsPerRegion)
    return false;
  if (position[ra] > position[rb])
    std::swap(ra, rb);
  unsigned lo = position[ra], hi = position[rb];

  // Clusters reachable from `ra` that come before `rb`. Reaching `rb` from
  // one of them means a path through another cluster: merging would make
  // the merged cluster non-convex.
  ++stamp;
  SmallVector<unsigned, 16> forward, stack;
  auto visitSuccessors = [&](unsigned root) {
    for (unsigned m : members[root])
      for (unsigned s : succs[m]) {
        unsigned r = find(s);
        if (r == ra || r == rb || position[r] > hi || visitedStamp[r] == stamp)
          continue;
        visitedStamp[r] = stamp;
        forward.push_back(r);
        stack.push_back(r);
      }
  };
  visitSuccessors(ra);
  while (!stack.empty()) {
    unsigned root = stack.pop_back_val();
    for (unsigned m : members[root])
      for (unsigned s : succs[m])
        if (find(s) == rb)
          return false;
    visitSuccessors(root);
  }

  // Merge, then restore the order inside the window [lo, hi]: clusters not
  // reachable from `ra` first, then the merged cluster, then the reachable
  // ones (none of which reaches `rb`, as checked above).
  SmallVector<unsigned, 16> before, after;
  for (unsigned p = lo + 1; p < hi; ++p) {
    if (rootAt[p] < 0)
      continue;
    unsigned root = rootAt[p];
    (visitedStamp[root] == stamp ? after : before).push_back(root);
  }
  unsigned keep = ra, gone = rb;
  if (members[keep].size() < members[gone].size())
    std::swap(keep, gone);
  parent[gone] = keep;
  members[keep].append(members[gone].begin(), members[gone].end());
  members[gone].clear();
  maxIndex[keep] = std::max(maxIndex[keep], maxIndex[gone]);
  hasAnchor[keep] = hasAnchor[keep] || hasAnchor[gone];
  hasContraction[keep] = hasContraction[keep] || hasContraction[gone];

  unsigned p = lo;
  auto place = [&](unsigned root) {
    position[root] = p;
    rootAt[p++] = root;
  };
  for (unsigned root : before)
    place(root);
  place(keep);
  for (unsigned root : after)
    place(root);
  while (p <= hi)
    rootAt[p++] = -1;
  return true;
}

/// Pads, transposes, reshapes and casts used only by an anchor become part of
/// it (IREE fuses such index remaps into the consumer's dispatch).
void BlockClustering::fuseDataMovementProducers() {
  for (unsigned anchor = 0; anchor < nodes.size(); ++anchor) {
    if (roles[anchor] != Role::Contraction && roles[anchor] != Role::Anchor)
      continue;
    SmallVector<unsigned, 8> worklist(dataPreds[anchor].begin(),
                                      dataPreds[anchor].end());
    while (!worklist.empty()) {
      unsigned p = worklist.pop_back_val();
      unsigned rp = find(p);
      if (roles[p] != Role::Fusible || !movesDataOnly[p] || hasAnchor[rp] ||
          members[rp].size() != 1)
        continue;
      unsigned target = find(anchor);
      bool onlyFeedsAnchor = llvm::all_of(
          dataSuccs[p], [&](unsigned s) { return find(s) == target; });
      if (!onlyFeedsAnchor || !tryMerge(p, anchor))
        continue;
      worklist.append(dataPreds[p].begin(), dataPreds[p].end());
    }
  }
}

/// Elementwise and data-movement consumers join the cluster of a producer:
/// the latest producer with an anchor, else the latest fusible chain.
void BlockClustering::fuseConsumers() {
  for (unsigned c = 0; c < nodes.size(); ++c) {
    if (roles[c] != Role::Fusible || hasAnchor[find(c)])
      continue;
    SmallVector<unsigned, 4> candidates;
    for (unsigned p : dataPreds[c]) {
      unsigned rp = find(p);
      if (rp != find(c) && !standalone[rp] &&
          !llvm::is_contained(candidates, rp))
        candidates.push_back(rp);
    }
    llvm::stable_sort(candidates, [&](unsigned x, unsigned y) {
      if (hasAnchor[x] != hasAnchor[y])
        return bool(hasAnchor[x]);
      return maxIndex[x] > maxIndex[y];
    });
    for (unsigned candidate : candidates)
      if (tryMerge(c, candidate))
        break;
  }
}

/// Everything that is not a contraction joins the layer of its latest
/// producer that holds one.
void BlockClustering::fuseIntoLayers() {
  for (unsigned c = 0; c < nodes.size(); ++c) {
    unsigned rc = find(c);
    if (standalone[rc] || hasContraction[rc])
      continue;
    SmallVector<unsigned, 4> candidates;
    for (unsigned p : dataPreds[c]) {
      unsigned rp = find(p);
      if (rp != rc && hasContraction[rp] && !standalone[rp] &&
          !llvm::is_contained(candidates, rp))
        candidates.push_back(rp);
    }
    llvm::sort(candidates, [&](unsigned x, unsigned y) {
      return maxIndex[x] > maxIndex[y];
    });
    for (unsigned candidate : candidates)
      if (tryMerge(c, candidate))
        break;
  }
}

void BlockClustering::cluster() {
  if (options.granularity == Granularity::PerOp)
    return;
  fuseDataMovementProducers();
  fuseConsumers();
  if (options.granularity == Granularity::PerLayer)
    fuseIntoLayers();
}

LogicalResult BlockClustering::materialize(int64_t &nextId,
                                           RegionFormationStats &stats) {
  unsigned n = nodes.size();
  if (n == 0)
    return success();
  llvm::DenseSet<Operation *> leavesInUse;
  for (Operation &op : block)
    if (isCloneableLeaf(&op) && !op.use_empty())
      leavesInUse.insert(&op);

  // The maintained cluster order respects every edge (data and memory
  // order) and follows block order where edges leave a choice.
  SmallVector<unsigned> order;
  for (int root : rootAt)
    if (root >= 0)
      order.push_back(root);

  Operation *terminator =
      block.mightHaveTerminator() ? block.getTerminator() : nullptr;
  for (unsigned root : order) {
    SmallVector<unsigned, 1> indices(members[root].begin(),
                                     members[root].end());
    llvm::sort(indices);
    Operation *regionOp;
    if (indices.size() == 1 && isa<RegionOp>(nodes[indices.front()])) {
      regionOp = nodes[indices.front()];
    } else {
      SmallVector<Operation *> ops;
      for (unsigned index : indices)
        ops.push_back(nodes[index]);
      RegionOp region = buildRegion(ops);
      region.setIdAttr(OpBuilder(region).getI64IntegerAttr(nextId++));
      regionOp = region;
      ++stats.regionsFormed;
      stats.opsClustered += ops.size();
    }
    if (terminator)
      regionOp->moveBefore(terminator);
    else
      regionOp->moveBefore(&block, block.end());
  }
  // Leaves that now feed only clones go away; a dynamic tensor.empty whose
  // size operand moved into a region is put back in order.
  for (Operation *leaf : leavesInUse)
    if (leaf->use_empty())
      leaf->erase();
  // Every region now follows every op that stayed (leaves, host-side
  // scalar ops), in an order that respects their edges; only an op that
  // stayed and reads a region's result (a dynamic size computed inside)
  // is out of order.
  bool ordered = llvm::none_of(block, [&](Operation &op) {
    return !isa<RegionOp>(op) && !op.hasTrait<OpTrait::IsTerminator>() &&
           llvm::any_of(op.getOperands(), [&](Value operand) {
             return isa_and_nonnull<RegionOp>(operand.getDefiningOp());
           });
  });
  if (!ordered && !sortTopologically(&block))
    return block.getParentOp()->emitError(
        "hwagent-form-regions: could not order the regions of a block");
  return success();
}

FailureOr<RegionFormationStats>
hwagent::formRegions(FunctionOpInterface function, WorkloadProfiler &profiler,
                     const RegionFormationOptions &options) {
  RegionFormationStats stats;
  if (function.isExternal())
    return stats;
  int64_t nextId = 0;
  function->walk([&](RegionOp region) {
    nextId = std::max<int64_t>(nextId, region.getIdAttr().getInt() + 1);
  });
  for (Block &block : function.getFunctionBody()) {
    BlockClustering clustering(block, profiler, options);
    clustering.buildGraph();
    clustering.cluster();
    if (failed(clustering.materialize(nextId, stats)))
      return failure();
  }
  return stats;
}
