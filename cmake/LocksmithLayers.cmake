# The layers of locksmith and what each may use (besides itself): every
# arrow points down. Configuration fails on an #include or a link that
# points up or sideways (locksmith_check_layer_includes,
# locksmith_check_layer_links). Also runs as a script, on any tree:
#   cmake -DROOT=<dir> -P cmake/LocksmithLayers.cmake
# history/ (the ops, their files and streams) stands on base alone, and the
# layers that record or read ops stand on it, not on each other's types:
# backends, nemesis and checker are peers. Two edges beside the tree, each
# for a reason: backends uses history only in its fuzz target (the shared
# checks of history/fuzz/fuzz_common.h), and workloads uses checker because a
# workload builds its own checkers from its options (Workload::Checkers()).
cmake_policy(SET CMP0057 NEW)
set(LOCKSMITH_LAYERS base cluster history checker backends workloads nemesis reports harness)
set(LOCKSMITH_LAYER_USES_base "")
set(LOCKSMITH_LAYER_USES_cluster base)
set(LOCKSMITH_LAYER_USES_history base)
set(LOCKSMITH_LAYER_USES_checker base history)
set(LOCKSMITH_LAYER_USES_backends base cluster history)
set(LOCKSMITH_LAYER_USES_workloads base cluster history checker backends)
set(LOCKSMITH_LAYER_USES_nemesis base cluster history backends)
set(LOCKSMITH_LAYER_USES_reports base history checker)
set(LOCKSMITH_LAYER_USES_harness base cluster history checker backends workloads nemesis reports)

# Every C++ file under ROOT/<layer>/ may include headers of its own layer and
# of the layers it uses; production files (not tests, benches, fuzz targets
# or testing/ doubles) never include a testing/ header. Fails with one line
# per offending include.
function(locksmith_check_layer_includes root)
  set(problems "")
  foreach(layer IN LISTS LOCKSMITH_LAYERS)
    file(GLOB_RECURSE sources RELATIVE ${root} ${root}/${layer}/*.h ${root}/${layer}/*.cc)
    set(allowed ${layer} ${LOCKSMITH_LAYER_USES_${layer}})
    list(JOIN LOCKSMITH_LAYER_USES_${layer} ", " uses)
    foreach(source IN LISTS sources)
      set(is_test FALSE)
      if(source MATCHES "(_test|_bench)\\.cc$|/testing/|/fuzz/")
        set(is_test TRUE)
      endif()
      file(STRINGS ${root}/${source} includes REGEX "^#include \"[a-z_]+/")
      foreach(line IN LISTS includes)
        string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" header "${line}")
        string(REGEX REPLACE "/.*" "" target_layer "${header}")
        if(NOT target_layer IN_LIST LOCKSMITH_LAYERS)
          continue()
        endif()
        if(NOT target_layer IN_LIST allowed)
          list(APPEND problems "${source} includes ${header} (${layer}/ may use only ${uses})")
        elseif(NOT is_test AND header MATCHES "/testing/")
          list(APPEND problems "${source} includes ${header} (only tests may use test doubles)")
        endif()
      endforeach()
    endforeach()
  endforeach()
  if(problems)
    list(JOIN problems "\n  " text)
    message(FATAL_ERROR "layering: an include points up:\n  ${text}")
  endif()
endfunction()

# Each layer's library links only libraries of the layers it uses.
function(locksmith_check_layer_links)
  foreach(layer IN LISTS LOCKSMITH_LAYERS)
    get_target_property(libs locksmith_${layer} LINK_LIBRARIES)
    if(NOT libs)
      continue()
    endif()
    foreach(lib IN LISTS libs)
      if(lib MATCHES "^locksmith_(.+)$")
        set(used ${CMAKE_MATCH_1})
        if(NOT used IN_LIST LOCKSMITH_LAYER_USES_${layer})
          list(JOIN LOCKSMITH_LAYER_USES_${layer} ", " uses)
          message(FATAL_ERROR "layering: locksmith_${layer} links ${lib} "
                              "(${layer}/ may use only ${uses})")
        endif()
      endif()
    endforeach()
  endforeach()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND ROOT)
  locksmith_check_layer_includes(${ROOT})
endif()
