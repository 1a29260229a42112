//===- RegionFormation.cpp - cluster ops into hwagent.region --------------===//
//
// Clustering works on the DAG whose nodes are the ops of one block (constants
// and tensor.empty excluded: they are cloned into each region that uses them)
// and whose edges are def-use edges plus ordering edges between ops with
// memory effects. Block order is a topological order of this DAG, so a path
// into cluster Y only passes nodes that come before Y's last member; the
// merge check below uses that to stay local.
//
//===----------------------------------------------------------------------===//

#include "hwagent/Analysis/RegionFormation.h"

#include "hwagent/Analysis/Utils.h"
#include "hwagent/Analysis/WorkloadProfile.h"
#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

#include <queue>

using namespace mlir;
using namespace mlir::hwagent;

std::optional<Granularity> hwagent::parseGranularity(StringRef name) {
  return llvm::StringSwitch<std::optional<Granularity>>(name)
      .Case("per-op", Granularity::PerOp)
      .Case("fused", Granularity::Fused)
      .Case("per-layer", Granularity::PerLayer)
      .Default(std::nullopt);
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

  void buildGraph();
  void cluster();
  LogicalResult materialize(int64_t &nextId, RegionFormationStats &stats);

private:
  Role classify(Operation *op);
  unsigned find(unsigned node);
  bool canMerge(unsigned a, unsigned b);
  bool hasPathThroughOthers(unsigned from, unsigned to);
  void merge(unsigned a, unsigned b);
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
  SmallVector<OpKind> kinds;
  SmallVector<bool> movesDataOnly;
  SmallVector<SmallVector<unsigned, 4>> succs, dataPreds, dataSuccs;

  // Union-find over nodes; per-root data is valid for roots only.
  SmallVector<unsigned> parent;
  SmallVector<SmallVector<unsigned, 1>> members;
  SmallVector<unsigned> maxIndex;
  SmallVector<bool> hasAnchor, hasContraction, standalone;

  // Visit stamps for the path search (no clearing between queries).
  SmallVector<unsigned> visitedStamp;
  unsigned stamp = 0;
};
} // namespace

Role BlockClustering::classify(Operation *op) {
  if (!op->isRegistered() || isa<CallOpInterface, RegionOp>(op) ||
      !isMemoryEffectFree(op))
    return Role::Standalone;
  OpWork work = profiler.getOpWork(op);
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

void BlockClustering::buildGraph() {
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>() || isCloneableLeaf(&op) ||
        op.hasTrait<OpTrait::ConstantLike>())
      continue;
    nodeOf[&op] = nodes.size();
    nodes.push_back(&op);
  }
  unsigned n = nodes.size();
  succs.resize(n);
  dataPreds.resize(n);
  dataSuccs.resize(n);
  roles.reserve(n);
  kinds.reserve(n);
  for (Operation *op : nodes) {
    roles.push_back(classify(op));
    OpWork work = profiler.getOpWork(op);
    kinds.push_back(work.kind);
    movesDataOnly.push_back(!work.opaque && work.flops == 0 &&
                            (work.kind == OpKind::data_movement ||
                             work.kind == OpKind::elementwise));
  }

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
    if (!isMemoryEffectFree(nodes[u])) {
      if (lastEffectful && !llvm::is_contained(preds, *lastEffectful))
        succs[*lastEffectful].push_back(u);
      lastEffectful = u;
    }
  }

  parent.resize(n);
  members.resize(n);
  maxIndex.resize(n);
  hasAnchor.resize(n);
  hasContraction.resize(n);
  standalone.resize(n);
  visitedStamp.assign(n, 0);
  for (unsigned u = 0; u < n; ++u) {
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

/// Whether some path leaves cluster `from`, passes at least one node of
/// another cluster and reaches cluster `to`. Merging two clusters joined by
/// such a path would make the merged region non-convex.
bool BlockClustering::hasPathThroughOthers(unsigned from, unsigned to) {
  unsigned limit = maxIndex[to];
  ++stamp;
  SmallVector<unsigned, 32> stack;
  for (unsigned m : members[from])
    for (unsigned s : succs[m]) {
      unsigned r = find(s);
      if (r == from || r == to || s > limit || visitedStamp[s] == stamp)
        continue;
      visitedStamp[s] = stamp;
      stack.push_back(s);
    }
  while (!stack.empty()) {
    unsigned node = stack.pop_back_val();
    for (unsigned s : succs[node]) {
      unsigned r = find(s);
      if (r == to)
        return true;
      if (r == from || s > limit || visitedStamp[s] == stamp)
        continue;
      visitedStamp[s] = stamp;
      stack.push_back(s);
    }
  }
  return false;
}

bool BlockClustering::canMerge(unsigned a, unsigned b) {
  unsigned ra = find(a), rb = find(b);
  if (ra == rb || standalone[ra] || standalone[rb])
    return false;
  if (options.maxOpsPerRegion &&
      members[ra].size() + members[rb].size() > options.maxOpsPerRegion)
    return false;
  return !hasPathThroughOthers(ra, rb) && !hasPathThroughOthers(rb, ra);
}

void BlockClustering::merge(unsigned a, unsigned b) {
  unsigned ra = find(a), rb = find(b);
  if (members[ra].size() < members[rb].size())
    std::swap(ra, rb);
  parent[rb] = ra;
  members[ra].append(members[rb].begin(), members[rb].end());
  members[rb].clear();
  maxIndex[ra] = std::max(maxIndex[ra], maxIndex[rb]);
  hasAnchor[ra] = hasAnchor[ra] || hasAnchor[rb];
  hasContraction[ra] = hasContraction[ra] || hasContraction[rb];
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
      if (!onlyFeedsAnchor || !canMerge(p, anchor))
        continue;
      merge(p, anchor);
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
      if (rp != find(c) && !standalone[rp] && !llvm::is_contained(candidates, rp))
        candidates.push_back(rp);
    }
    llvm::stable_sort(candidates, [&](unsigned x, unsigned y) {
      if (hasAnchor[x] != hasAnchor[y])
        return bool(hasAnchor[x]);
      return maxIndex[x] > maxIndex[y];
    });
    for (unsigned candidate : candidates)
      if (canMerge(c, candidate)) {
        merge(c, candidate);
        break;
      }
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
      if (canMerge(c, candidate)) {
        merge(c, candidate);
        break;
      }
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

/// Moves the ops of one cluster into a new hwagent.region placed at the first
/// of them; external values become operands (cloneable leaves are cloned),
/// values used outside become results.
static RegionOp buildRegion(ArrayRef<Operation *> ops) {
  llvm::DenseSet<Operation *> memberSet(ops.begin(), ops.end());
  Block *block = ops.front()->getBlock();

  SmallVector<Value> outputs;
  for (Operation *op : ops)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            Operation *ancestor = block->findAncestorOpInBlock(*user);
            return !ancestor || !memberSet.contains(ancestor);
          }))
        outputs.push_back(result);

  // Name the region after its heaviest op for diagnostics.
  Location loc = ops.front()->getLoc();
  OpBuilder builder(ops.front());
  auto region = RegionOp::create(builder, loc, /*id=*/0,
                                 ValueRange(outputs).getTypes(), ValueRange{});
  Block &body = region.getBodyBlock();
  for (Operation *op : ops)
    op->moveBefore(&body, body.end());
  builder.setInsertionPointToEnd(&body);
  YieldOp::create(builder, loc, outputs);
  for (auto [output, result] : llvm::zip(outputs, region.getResults()))
    output.replaceUsesWithIf(result, [&](OpOperand &use) {
      return !region->isAncestor(use.getOwner());
    });

  // Rewire every use of a value from outside the region.
  llvm::DenseMap<Value, Value> mapped;
  SmallVector<OpOperand *> externalUses;
  auto collect = [&](Operation *root) {
    root->walk([&](Operation *op) {
      for (OpOperand &operand : op->getOpOperands()) {
        Region *defRegion = operand.get().getParentRegion();
        if (!defRegion || !region->isAncestor(defRegion->getParentOp()))
          externalUses.push_back(&operand);
      }
    });
  };
  for (Operation &op : body)
    collect(&op);
  for (size_t next = 0; next < externalUses.size(); ++next) {
    OpOperand *use = externalUses[next];
    Value value = use->get();
    if (auto it = mapped.find(value); it != mapped.end()) {
      use->set(it->second);
      continue;
    }
    Operation *def = value.getDefiningOp();
    if (def && isCloneableLeaf(def)) {
      builder.setInsertionPointToStart(&body);
      Operation *clone = builder.clone(*def);
      for (auto [original, copy] :
           llvm::zip(def->getResults(), clone->getResults()))
        mapped[original] = copy;
      collect(clone);
      use->set(mapped[value]);
      continue;
    }
    region.getInputsMutable().append(value);
    BlockArgument arg = body.addArgument(value.getType(), value.getLoc());
    mapped[value] = arg;
    use->set(arg);
  }
  // Clones were put at the top in discovery order; order them by their uses.
  (void)sortTopologically(&body);
  return region;
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

  // Clusters in an order that respects every edge (data and memory order),
  // ties broken by block order so the output is deterministic.
  SmallVector<unsigned> rootOf(n), minIndex(n, n), indegree(n, 0);
  for (unsigned u = 0; u < n; ++u) {
    rootOf[u] = find(u);
    minIndex[rootOf[u]] = std::min(minIndex[rootOf[u]], u);
  }
  llvm::DenseSet<std::pair<unsigned, unsigned>> clusterEdges;
  SmallVector<SmallVector<unsigned, 4>> clusterSuccs(n);
  for (unsigned u = 0; u < n; ++u)
    for (unsigned s : succs[u]) {
      unsigned a = rootOf[u], b = rootOf[s];
      if (a != b && clusterEdges.insert({a, b}).second) {
        clusterSuccs[a].push_back(b);
        ++indegree[b];
      }
    }
  using Entry = std::pair<unsigned, unsigned>; // (minIndex, root)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
  for (unsigned u = 0; u < n; ++u)
    if (rootOf[u] == u && indegree[u] == 0)
      ready.push({minIndex[u], u});
  SmallVector<unsigned> order;
  while (!ready.empty()) {
    unsigned root = ready.top().second;
    ready.pop();
    order.push_back(root);
    for (unsigned s : clusterSuccs[root])
      if (--indegree[s] == 0)
        ready.push({minIndex[s], s});
  }
  unsigned numClusters = llvm::count_if(
      llvm::seq<unsigned>(0, n), [&](unsigned u) { return rootOf[u] == u; });
  if (order.size() != numClusters)
    return nodes.front()->emitError(
        "hwagent-form-regions: internal error, clusters form a cycle");

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
      region.setIdAttr(
          OpBuilder(region).getI64IntegerAttr(nextId++));
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
  if (!sortTopologically(&block))
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
